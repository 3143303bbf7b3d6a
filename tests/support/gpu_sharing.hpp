// For the families' MPI tests: every rank "sees" one GPU and is bound to the same physical GPU
// (the session is told so; this machine has none and nothing runs on it), then each GPU test's
// waiver is asked. Rank 0 owns the GPU; every other rank must waive, naming the owner.
#pragma once

#include "core/config.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "core/session.hpp"
#include "gpu/gpu_facts.hpp"
#include "support/mpi_world.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace shakedown::testing {

inline std::optional<std::string> waiver_with(const Session& session, const std::string& key) {
    CliOverrides cli;
    cli.tests = {key};
    const Config config = parse_config_text("", "test-config", cli, Registry::instance());
    const Test& test = *Registry::instance().find(key);
    const RunContext ctx(session, config, config.params_for(test), session.world(), nlohmann::json::object(), {});
    return test.waiver(ctx);
}

inline void expect_one_rank_per_gpu(const std::vector<std::string>& keys) {
    Session session(MPI_COMM_WORLD, 1);
    session.record_gpu_identity("GPU-11111111-2222-3333-4444-555555555555");
    for (const std::string& key : keys) {
        SCOPED_TRACE(key);
        const auto waiver = waiver_with(session, key);
        if (!gpu::cuda_built()) {  // a CPU build: no rank has a usable GPU; nothing to share
            continue;
        }
        if (world_rank() == 0) {
            EXPECT_FALSE(waiver.has_value()) << *waiver;  // the owner measures it
        } else {
            ASSERT_TRUE(waiver.has_value());
            EXPECT_EQ(*waiver, "GPU 0 is shared with rank 0, which measures it (one rank per GPU)");
        }
    }
}

}  // namespace shakedown::testing
