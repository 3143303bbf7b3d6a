// Each device judged as a device, end to end: 4 ranks on this 2-core machine run dgemm_fp64 on
// the host; each rank's nominal is its share of the node's cores, so the sharing itself fails
// nothing. (A shortfall the analyzer traces to the BLAS build is configuration to fix, not a
// hardware FAIL either.) Run alone (RUN_SERIAL): other tests on the same cores would be load.
#include "e2e_support.hpp"
#include "trace/trace_reader.hpp"

#include <gtest/gtest.h>

namespace shakedown::testing {
namespace {

TEST(Sharing, FourRanksOnTwoCoresAreNotFailedForSharing) {
    const ScratchFolder scratch("sharing");
    const auto config = scratch.write("dgemm.yaml", "params: {dgemm_fp64: {device: host, n: 256, repetitions: 5}}\n");
    const auto run = run_process(mpirun(4, {SHAKEDOWN_DRIVER, "run", "--tests", "dgemm_fp64", "--config", config.string(),
                                            "--out", scratch.path().string(), "--name", "r", "--no-telemetry"}));
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const auto folder = scratch.path() / "r";
    for (int rank = 0; rank < 4; ++rank) {
        const Trace trace = read_trace(folder / trace_relative_path(rank));
        const auto& parameters = trace.tests.at(0).parameters;
        EXPECT_NE(parameters.at("nominal_detail").find("(4 rank(s) on them)"), std::string::npos)
            << parameters.at("nominal_detail");
    }
    const auto analysis = run_process({SHAKEDOWN_ANALYZER, folder.string(), "--no-html"});
    EXPECT_NE(analysis.exit_code, 1) << analysis.output;  // no node FAIL
    const auto summary = read_json(folder / "summary.json");
    for (const auto& finding : summary["nodes"][0]["findings"])
        EXPECT_FALSE(finding["level"] == "fail" && finding["cause"] == "hardware") << finding.dump();
}

}  // namespace
}  // namespace shakedown::testing
