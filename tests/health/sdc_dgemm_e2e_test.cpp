// sdc_dgemm end to end on the host BLAS: the real driver under the real mpirun, then
// shakedown-analyze. A planted flipped bit in rank 1's second product FAILs the node naming the
// rank, with a drain line; the same run without the fault passes and drains nothing.
#include "e2e_support.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace shakedown::testing {
namespace {

namespace fs = std::filesystem;

const std::string sdc_params = "params:\n  sdc_dgemm: {device: host, n: 96}\n";

struct Outcome {
    ProcessResult run;
    ProcessResult analysis;
    nlohmann::json summary;
    std::string drain;
};

Outcome run_sdc(const ScratchFolder& scratch, const std::string& more_config) {
    const auto config = scratch.write("config.yaml", sdc_params + more_config);
    const auto thresholds = scratch.write("thresholds.yaml", speed_rules_off);
    Outcome outcome;
    outcome.run = run_process(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "sdc_dgemm", "--config", config.string(), "--out",
                                         scratch.path().string(), "--name", "run"}));
    const fs::path folder = scratch.path() / "run";
    outcome.analysis = run_process({SHAKEDOWN_ANALYZER, folder.string(), "--thresholds", thresholds.string()});
    if (fs::exists(folder / "summary.json")) outcome.summary = read_json(folder / "summary.json");
    std::ifstream drain(folder / "drain.txt");
    std::stringstream text;
    text << drain.rdbuf();
    outcome.drain = text.str();
    return outcome;
}

std::string drain_lines(const std::string& drain) {
    std::string lines;
    std::istringstream in(drain);
    for (std::string line; std::getline(in, line);)
        if (line.starts_with("scontrol")) lines += line + "\n";
    return lines;
}

TEST(EndToEndSdcDgemm, PlantedFlippedBitFailsTheNodeNamingTheRank) {
    const ScratchFolder scratch("sdc-planted");
    const auto outcome = run_sdc(scratch, "faults: [{kind: corrupt, test: sdc_dgemm, rank: 1}]\n");
    EXPECT_EQ(outcome.analysis.exit_code, 1) << outcome.run.output << outcome.analysis.output;
    ASSERT_TRUE(outcome.summary.contains("nodes")) << outcome.analysis.output;
    EXPECT_EQ(outcome.summary["nodes"][0]["verdict"], "fail");
    bool named = false;
    for (const auto& finding : outcome.summary["nodes"][0]["findings"])
        if (finding["test"] == "sdc_dgemm") {
            named = true;
            EXPECT_EQ(finding["rank"], 1) << finding.dump();
            EXPECT_EQ(finding["level"], "fail");
        }
    EXPECT_TRUE(named) << outcome.summary.dump(2);
    const std::string drain = drain_lines(outcome.drain);
    EXPECT_NE(drain.find("rank 1 (host): the same product differs between two runs"), std::string::npos) << outcome.drain;
}

TEST(EndToEndSdcDgemm, HealthyRunPassesAndDrainsNothing) {
    const ScratchFolder scratch("sdc-healthy");
    const auto outcome = run_sdc(scratch, "");
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    EXPECT_EQ(outcome.analysis.exit_code, 0) << outcome.analysis.output;
    EXPECT_EQ(outcome.summary["nodes"][0]["verdict"], "pass") << outcome.summary.dump(2);
    EXPECT_EQ(drain_lines(outcome.drain), "");
}

}  // namespace
}  // namespace shakedown::testing
