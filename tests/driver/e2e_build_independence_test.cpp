// One config for every build: each GPU-cluster config the repository ships (written for a CUDA
// build on the H200 host) is accepted by this build, whatever it was built with, and every GPU
// test in it is waived with why it cannot run here (not built, or no CUDA device), never refused
// and never passed. CI runs this on the CUDA build and on the CPU-only AddressSanitizer build.
#include "e2e_support.hpp"
#include "trace/trace_reader.hpp"

#include <gtest/gtest.h>

#include <set>

namespace shakedown::testing {
namespace {

namespace fs = std::filesystem;

// Tests that need a GPU (and, for gpudirect_rdma, an RDMA device): waived on this machine.
const std::string gpu_tests = "nccl,gemm_ladder,h2d_bandwidth,gpu_aware_mpi,gpudirect_rdma";

std::vector<fs::path> shipped_gpu_configs() {
    std::vector<fs::path> configs;
    for (const char* folder : {"mpi/configs", "health/configs", "bench/gpu"})
        for (const auto& entry : fs::directory_iterator(fs::path(SHAKEDOWN_SOURCE_DIR) / folder))
            if (entry.path().extension() == ".yaml") configs.push_back(entry.path());
    std::sort(configs.begin(), configs.end());
    return configs;
}

TEST(BuildIndependence, EveryShippedGpuConfigIsAcceptedAndItsGpuTestsWaivedWithTheReason) {
    const auto configs = shipped_gpu_configs();
    ASSERT_GE(configs.size(), 10u);
    const ScratchFolder scratch("build-independence");
    int index = 0;
    for (const fs::path& config : configs) {
        SCOPED_TRACE(config.string());
        const std::string name = fmt::format("r{}", index++);
        const auto run = run_process(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", gpu_tests, "--config", config.string(),
                                                "--out", scratch.path().string(), "--name", name, "--no-telemetry"}));
        ASSERT_EQ(run.exit_code, 0) << run.output;
        for (int rank : {0, 1}) {
            const Trace trace = read_trace(scratch.path() / name / trace_relative_path(rank));
            std::set<std::string> seen;
            for (const auto& test : trace.tests) {
                seen.insert(test.key);
                EXPECT_EQ(test.status, Status::waived) << test.key << ": " << test.reason;
                const bool why_known = test.reason.find("built without") != std::string::npos ||
                                       test.reason.find("no CUDA device") != std::string::npos ||
                                       test.reason.find("no RDMA device") != std::string::npos;
                EXPECT_TRUE(why_known) << test.key << ": " << test.reason;
            }
            EXPECT_EQ(seen.size(), 5u) << "rank " << rank;
        }
    }
}

}  // namespace
}  // namespace shakedown::testing
