// ucx_pair's timed loops and validation passes over real UCX (shared memory or TCP between the
// ranks here), each pair of world ranks 2i, 2i+1 on its own: the timed loops write and check no
// payload, every validation message is checked once where it lands, and the planted corruption
// of a validation pass is caught in every loop.
#include "support/mpi_world.hpp"

#include "ib/pair/peer_channel.hpp"
#include "ib/pair/validation_pass.hpp"
#include "ib/ucx/ucx_pair.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>

namespace shakedown::testing {
namespace {

using ib::PlantedFaults;
using ib::ucx::UcxOperation;
using ib::ucx::UcxOutcome;
using ib::ucx::UcxPlan;

UcxPlan small_plan() {
    UcxPlan plan;
    plan.sizes = {1, 64, 8192};
    plan.latency_warmup = 2;
    plan.latency_iterations = 10;
    plan.bandwidth_iterations = 16;
    plan.window = 4;
    plan.timeout_s = 10.0;
    return plan;
}

bool initiator() { return world_rank() % 2 == 0; }

UcxOutcome run_pair(const UcxPlan& plan, PlantedFaults faults) {
    ib::MpiPeerChannel channel(MPI_COMM_WORLD, world_rank() ^ 1);
    return ib::ucx::run_ucx_pair(channel, initiator(), plan, faults);
}

// The timed loops count as touching the payload any pattern written or checked while they run:
// none. The checks: the initiator receives pongs and gets (latency and bandwidth), the responder
// pings, tag messages and puts, validation_messages(window) of each per size.
TEST(UcxValidation, TimedLoopsLeaveThePayloadAloneAndEveryValidationMessageIsChecked) {
    const auto plan = small_plan();
    const auto outcome = run_pair(plan, {});
    EXPECT_TRUE(outcome.mismatches.empty()) << outcome.mismatches.front();
    EXPECT_EQ(outcome.timed_payload_accesses, 0);
    const int loops_checked_here = initiator() ? 3 : 4;
    EXPECT_EQ(outcome.validated_messages,
              loops_checked_here * ib::validation_messages(plan.window) * static_cast<int>(plan.sizes.size()));
    for (const auto& f : outcome.figures) {
        EXPECT_GT(f.latency_us.median, 0.0);
        EXPECT_GT(f.bandwidth_gbs, 0.0);
    }
}

struct UcxLoop {
    UcxOperation operation;
    bool bandwidth;
};

class UcxLoopValidation : public ::testing::TestWithParam<UcxLoop> {};

// The side that provides this loop's data plants the corruption (the initiator pings, sends and
// puts; the responder pongs and is read from): the other side names message 0 of the loop's
// validation pass at every size. For tag latency both directions are shown.
TEST_P(UcxLoopValidation, PlantedCorruptionIsCaughtInTheValidationPass) {
    const auto [operation, bandwidth] = GetParam();
    const auto what = fmt::format("{} {}", ib::ucx::to_string(operation), bandwidth ? "bandwidth" : "latency");
    const bool tag_latency = operation == UcxOperation::tag && !bandwidth;
    for (const bool initiator_provides : {true, false}) {
        if (!tag_latency && initiator_provides != (operation != UcxOperation::get)) continue;
        const bool corrupt_here = initiator() == initiator_provides;
        const auto plan = small_plan();
        const auto outcome = run_pair(plan, PlantedFaults{corrupt_here, 0.0});
        if (corrupt_here) continue;
        for (const auto bytes : plan.sizes) {
            const auto expected = fmt::format("payload mismatch in UCX {} {} B, message 0: byte 0 ", what, bytes);
            EXPECT_TRUE(std::any_of(outcome.mismatches.begin(), outcome.mismatches.end(),
                                    [&](const std::string& m) { return m.rfind(expected, 0) == 0; }))
                << expected << "\nseen: " << fmt::format("{}", fmt::join(outcome.mismatches, "\n"));
        }
    }
}

INSTANTIATE_TEST_SUITE_P(EveryLoop, UcxLoopValidation,
                         ::testing::Values(UcxLoop{UcxOperation::tag, false}, UcxLoop{UcxOperation::tag, true},
                                           UcxLoop{UcxOperation::put, false}, UcxLoop{UcxOperation::put, true},
                                           UcxLoop{UcxOperation::get, false}, UcxLoop{UcxOperation::get, true}),
                         [](const ::testing::TestParamInfo<UcxLoop>& info) {
                             return fmt::format("{}{}", ib::ucx::to_string(info.param.operation),
                                                info.param.bandwidth ? "Bandwidth" : "Latency");
                         });

}  // namespace
}  // namespace shakedown::testing
