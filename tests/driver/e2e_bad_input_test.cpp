// Bad input: one clear line, exit code 2, nothing already written lost or overwritten.
#include "e2e_support.hpp"
#include "../support/full_file_system.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

namespace shakedown::testing {
namespace {

void expect_one_line_error(const ProcessResult& result, const std::string& expected_part) {
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_EQ(count_lines(result.output), 1u) << result.output;
    EXPECT_EQ(result.output.rfind("shakedown: ", 0), 0u) << result.output;
    EXPECT_NE(result.output.find(expected_part), std::string::npos) << result.output;
}

TEST(BadInput, UnknownTestOrSuite) {
    expect_one_line_error(run_process({SHAKEDOWN_DRIVER, "run", "--tests", "stream,strem"}),
                          "unknown test 'strem' (did you mean 'stream'?) (known: ");
    expect_one_line_error(run_process({SHAKEDOWN_DRIVER, "run", "--tests", "burnin_gpu_memory"}),
                          "unknown test 'burnin_gpu_memory' (known: ");
    expect_one_line_error(run_process({SHAKEDOWN_DRIVER, "run", "--suite", "nightly"}), "unknown suite 'nightly'");
    expect_one_line_error(run_process({SHAKEDOWN_DRIVER, "run", "--exclude", "nothing"}), "unknown test 'nothing'");
}

// Not run is not a pass: a run that would run nothing is refused before it starts.
TEST(BadInput, NothingToRun) {
    expect_one_line_error(run_process({SHAKEDOWN_DRIVER, "run", "--tests", ""}), "--tests names no test");
    expect_one_line_error(run_process({SHAKEDOWN_DRIVER, "run", "--tests", "topology", "--exclude", "topology"}),
                          "nothing to run: --exclude topology removes every test of --tests topology");
}

TEST(BadInput, UnknownOptionOrSubcommand) {
    expect_one_line_error(run_process({SHAKEDOWN_DRIVER, "run", "--suit", "quick"}), "--suit");
    // The words, never CLI11's internal map ({auto->0,lines->2,live->1}).
    expect_one_line_error(run_process({SHAKEDOWN_DRIVER, "run", "--progress", "fast"}),
                          "--progress: 'fast' is not a progress style: give auto, live or lines");
    expect_one_line_error(run_process({SHAKEDOWN_DRIVER, "fly"}), "unknown command 'fly' (known: run, list,");
}

TEST(BadInput, MalformedAndMistypedYaml) {
    const ScratchFolder scratch("yaml");
    const auto malformed = scratch.write("malformed.yaml", "suite: quick\nparams: {stream: [\n");
    expect_one_line_error(run_process({SHAKEDOWN_DRIVER, "run", "--config", malformed.string()}),
                          "malformed.yaml:3: malformed YAML");
    const auto mistyped = scratch.write("mistyped.yaml", "telemetry:\n  rate_hz: fast\n");
    expect_one_line_error(run_process({SHAKEDOWN_DRIVER, "run", "--config", mistyped.string()}),
                          "mistyped.yaml:2: 'telemetry.rate_hz' must be a number, not 'fast'");
    const auto unknown_param = scratch.write("param.yaml", "params: {stream: {array_gib: 4}}\n");
    expect_one_line_error(run_process({SHAKEDOWN_DRIVER, "run", "--config", unknown_param.string()}),
                          "unknown key 'array_gib' in params.stream");
    expect_one_line_error(run_process({SHAKEDOWN_DRIVER, "run", "--config", (scratch.path() / "absent.yaml").string()}),
                          "cannot read config file");
}

TEST(BadInput, ParameterValuesAreCheckedBeforeAnyWork) {
    const ScratchFolder scratch("values");
    const auto config = scratch.write("values.yaml", "params: {mpi_coll: {collectives: \"allreduce,allreduse\"}}\n");
    const auto result = run_process(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "mpi_coll", "--config", config.string(),
                                               "--out", (scratch.path() / "runs").string()}));
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find("values.yaml:1: 'params.mpi_coll.collectives' unknown value 'allreduse' (known: allreduce,"),
              std::string::npos)
        << result.output;
    EXPECT_FALSE(std::filesystem::exists(scratch.path() / "runs")) << "a run folder was made for a run that never started";
}

// A value only the node can judge (a matrix its memory cannot hold) is found once the run has
// started: the test errors with the line, the other tests still run, the run folder records
// it all, and the exit code is still bad input's.
TEST(BadInput, ImpossibleOnThisNodeIsExit2AfterARecordedRun) {
    const ScratchFolder scratch("node-values");
    const auto config = scratch.write("huge.yaml", "params: {dgemm_fp64: {device: host, n: 1000000}, "
                                                   "stream: {array_mib: 1, repetitions: 2}}\n");
    const auto result = run_process(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "dgemm_fp64,stream", "--config",
                                               config.string(), "--out", scratch.path().string(), "--name", "huge"}));
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find("dgemm_fp64: n=1000000 needs"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("at most n="), std::string::npos) << result.output;
    const auto manifest = read_json(scratch.path() / "huge" / "run.json");
    EXPECT_EQ(manifest.at("status"), "complete");
    EXPECT_TRUE(std::filesystem::exists(scratch.path() / "huge" / trace_relative_path(1)));
    EXPECT_NE(result.output.find("[2/2] stream           pass"), std::string::npos) << "the next test did not run:\n"
                                                                                   << result.output;
}

TEST(BadInput, UnwritableOutputFolder) {
    const ScratchFolder scratch("unwritable");
    const auto file = scratch.write("a-file", "not a folder\n");
    const auto result = run_process(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "stream", "--out", (file / "runs").string()}));
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find("shakedown: cannot create output folder"), std::string::npos) << result.output;
    std::ifstream in(file);
    std::string content;
    std::getline(in, content);
    EXPECT_EQ(content, "not a folder");
}

TEST(BadInput, ExistingRunFolderIsNeverOverwritten) {
    const ScratchFolder scratch("exists");
    std::filesystem::create_directories(scratch.path() / "earlier");
    const auto kept = scratch.write("earlier/run.json", "{\"precious\": true}\n");
    const auto result = run_process(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "stream", "--out",
                                               scratch.path().string(), "--name", "earlier"}));
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find("shakedown: run folder '" + (scratch.path() / "earlier").string() +
                                 "' exists already; shakedown never overwrites a run"),
              std::string::npos)
        << result.output;
    EXPECT_EQ(read_json(kept), nlohmann::json({{"precious", true}}));
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(scratch.path() / "earlier"),
                            std::filesystem::directory_iterator()),
              1);
}

// `--suite ''`, `--out ''`, `--name ''`, `--tag ''` (often an unset shell variable) fell back to the
// defaults and ran; newlines and escape codes in --name/--tag reached folder names; a 300-byte
// --name ended after MPI had started with a raw filesystem error. Each is one line, exit 2, and no
// run folder, before any MPI work.
TEST(BadInput, EmptyAndOddOptionValuesAreRefusedBeforeAnyWork) {
    const ScratchFolder scratch("odd-values");
    const std::string runs = (scratch.path() / "runs").string();
    const auto refused = [&](std::vector<std::string> arguments, const std::string& expected) {
        std::vector<std::string> command{SHAKEDOWN_DRIVER, "run", "--tests", "stream"};
        if (arguments.front() != "--out") command.insert(command.end(), {"--out", runs});
        command.insert(command.end(), arguments.begin(), arguments.end());
        SCOPED_TRACE(expected);
        const ProcessResult result = run_process(command);
        expect_one_line_error(result, expected);
        EXPECT_EQ(result.output, "shakedown: " + expected + "\n");
    };
    refused({"--suite", ""}, "--suite is empty: give a suite name (quick, full, burnin, pairwise), or leave --suite out");
    refused({"--out", ""}, "--out is empty: give the folder the run folder goes into, or leave --out out");
    refused({"--name", ""}, "--name is empty: give a folder name, or leave --name out");
    refused({"--tag", ""}, "--tag is empty: give a label, or leave --tag out");
    refused({"--config", ""}, "--config is empty: give a YAML file, or leave --config out");
    refused({"--name", "run\nVerdict: PASS"}, "the run name must be printable text: byte 0x0a at position 4 is a control character");
    refused({"--tag", "a\x1b[2Kb"}, "the tag must be printable text: byte 0x1b at position 2 is a control character");
    refused({"--name", std::string(300, 'n')}, "the run name is 300 bytes long; at most 255");
    EXPECT_FALSE(std::filesystem::exists(runs));
}

// A fault on a rank the run does not have planted nothing and the run passed: refused naming the
// fault once the world size is known, before the run folder is made.
TEST(BadInput, AFaultOnARankTheRunDoesNotHaveIsRefused) {
    const ScratchFolder scratch("fault-rank");
    const auto config = scratch.write("fault.yaml", "faults:\n  - {kind: corrupt, test: stream, rank: 99}\n");
    const auto result = run_process(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "stream", "--config", config.string(),
                                               "--out", (scratch.path() / "runs").string()}));
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find("shakedown: " + config.string() + ":2: fault corrupt on stream cannot be planted: rank 99 "
                                 "is not in this run of 2 rank(s) (0..1)\n"),
              std::string::npos)
        << result.output;
    EXPECT_FALSE(std::filesystem::exists(scratch.path() / "runs"));
}

// At 0 bytes free the run folder stayed half made (a 0-byte rank file, no run.json) and the message
// gave no reason. Now: the reason, exit 2, and nothing of a run that never started is left.
TEST(BadInput, AFullDiskAtTheStartSaysWhyAndLeavesNoHalfMadeRunFolder) {
    FullFileSystem full;
    if (!full.available()) GTEST_SKIP() << "no full file system to test on: " << full.why_not();
    full.with_space([&] { std::filesystem::create_directories(full.path() / "runs" / "earlier"); });
    const auto result = run_process(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "stream", "--out",
                                               (full.path() / "runs").string(), "--name", "full"}));
    EXPECT_EQ(result.exit_code, 2) << result.output;
    const auto folder = full.path() / "runs" / "full";
    EXPECT_NE(result.output.find("shakedown: cannot write " + (folder / "run.json").string() +
                                 ": No space left on device (the run did not start; its folder '" + folder.string() +
                                 "' was removed)\n"),
              std::string::npos)
        << result.output;
    EXPECT_FALSE(std::filesystem::exists(folder)) << "a half-made run folder was left";
    EXPECT_TRUE(std::filesystem::is_directory(full.path() / "runs" / "earlier"));
}

}  // namespace
}  // namespace shakedown::testing
