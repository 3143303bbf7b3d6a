// The expected profile end to end: the real driver under mpirun records it, the real analyzer
// judges against it. This machine has no GPU: a profile expecting one FAILs naming the missing
// GPU; `shakedown profile --from` of a run judges that run PASS; a bad profile is refused.
#include "e2e_support.hpp"

#include <gtest/gtest.h>

namespace shakedown::testing {
namespace {

TEST(Profile, ExpectingAGpuOnThisGpulessMachineFailsNamingIt) {
    const ScratchFolder scratch("profile-gpu");
    const auto config = scratch.write("small.yaml", small_params);
    const auto run = run_process(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "stream,gemm_ladder", "--config",
                                            config.string(), "--gpus-per-node", "1", "--out", scratch.path().string(),
                                            "--name", "r", "--no-telemetry"}));
    ASSERT_EQ(run.exit_code, 0) << run.output;  // the tests themselves pass or waive
    const auto folder = scratch.path() / "r";
    EXPECT_EQ(read_json(folder / "run.json")["profile"], "profile.yaml");
    const auto analysis = run_process({SHAKEDOWN_ANALYZER, folder.string(), "--no-html"});
    EXPECT_EQ(analysis.exit_code, 1) << analysis.output;
    EXPECT_NE(analysis.output.find("profile: " + read_json(folder / "run.json")["nodes"][0]["name"].get<std::string>() +
                                   ": 0 of 1 GPUs found"),
              std::string::npos)
        << analysis.output;
    EXPECT_NE(analysis.output.find("not run is not a pass: gemm_ladder waived on every rank"), std::string::npos)
        << analysis.output;
}

TEST(Profile, ARunJudgedAgainstItsOwnProfilePasses) {
    const ScratchFolder scratch("profile-from");
    const auto config = scratch.write("small.yaml", small_params);
    const auto run = run_process(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "stream,mpi_pingpong", "--config",
                                            config.string(), "--out", scratch.path().string(), "--name", "ref",
                                            "--no-telemetry"}));
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const auto folder = scratch.path() / "ref";
    const auto printed = run_process({SHAKEDOWN_DRIVER, "profile", "--from", folder.string()});
    ASSERT_EQ(printed.exit_code, 0) << printed.output;
    EXPECT_NE(printed.output.find("tests: [stream, mpi_pingpong]"), std::string::npos) << printed.output;
    const auto profile = scratch.write("profile.yaml", printed.output);
    const auto analysis = run_process({SHAKEDOWN_ANALYZER, folder.string(), "--no-html", "--profile", profile.string(),
                                       "--thresholds", scratch.write("t.yaml", speed_rules_off).string()});
    EXPECT_EQ(analysis.exit_code, 0) << analysis.output;
}

TEST(Profile, ABadProfileIsOneLineAndExit2BeforeAnyWork) {
    const ScratchFolder scratch("profile-bad");
    const auto bad = scratch.write("bad.yaml", "classes:\n  - nodes: all\n    gpus_per_nod: 8\n");
    const auto run = run_process({SHAKEDOWN_DRIVER, "run", "--tests", "stream", "--profile", bad.string(), "--out",
                                  (scratch.path() / "runs").string()});
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_EQ(count_lines(run.output), 1u) << run.output;
    EXPECT_NE(run.output.find("bad.yaml:3: unknown key 'gpus_per_nod'"), std::string::npos) << run.output;
    EXPECT_FALSE(std::filesystem::exists(scratch.path() / "runs"));
    const auto from = run_process({SHAKEDOWN_DRIVER, "profile", "--from", (scratch.path() / "nothing").string()});
    EXPECT_EQ(from.exit_code, 2) << from.output;
    EXPECT_NE(from.output.find("is not a shakedown run folder"), std::string::npos) << from.output;
}

}  // namespace
}  // namespace shakedown::testing
