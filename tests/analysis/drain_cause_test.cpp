// Only hardware drains: through the shakedown-analyze executable on real run folders. A
// configuration or software error fails the run with exit 2 and what to fix, never a drain line;
// a hardware failure on a node Slurm names with '_' (gpu_node01) is drained like any other.
#include "analysis_fixtures.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>

namespace shakedown::analysis {
namespace {

using testing::healthy_traces;
using testing::read_text;
using testing::TempDir;
using testing::test_named;
using testing::write_run;

struct Analysis {
    int exit_code = -1;
    std::string out;
    std::string drain;
    nlohmann::json summary;
};

Analysis analyze(const TempDir& temp, const std::filesystem::path& run) {
    const auto out = temp.path() / "out.txt";
    const std::string command = std::string("'") + SHAKEDOWN_ANALYZE_EXE + "' '" + run.string() + "' --no-html >'" +
                                out.string() + "' 2>&1";
    const int status = std::system(command.c_str());
    Analysis result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = read_text(out);
    result.drain = read_text(run / "drain.txt");
    std::ifstream(run / "summary.json") >> result.summary;
    return result;
}

int drain_lines(const std::string& drain) {
    int lines = 0;
    for (std::size_t at = drain.find("scontrol update"); at != std::string::npos; at = drain.find("scontrol update", at + 1))
        ++lines;
    return lines;
}

TEST(OnlyHardwareDrains, ConfigurationErrorIsExit2WithWhatToFixAndNoDrainLine) {
    TempDir temp;
    auto traces = healthy_traces(2, 1);
    TestResult& stream = test_named(traces[1], "stream");
    stream.status = Status::error;
    stream.reason = "stream: 200000 MiB per array needs 585.9 GiB per rank; this node has 12.0 GiB per rank";
    stream.cause = Cause::configuration;
    const Analysis result = analyze(temp, write_run(temp.path() / "run", traces));
    EXPECT_EQ(result.exit_code, 2) << result.out;
    EXPECT_EQ(drain_lines(result.drain), 0) << result.drain;
    EXPECT_NE(result.out.find("To fix before the hardware can be judged (not drained) (1):"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("configuration: node0001 rank 1 stream: stream ended with an error: stream: 200000 MiB"),
              std::string::npos)
        << result.out;
    EXPECT_EQ(result.summary["verdict"], "error");
    EXPECT_EQ(result.summary["nodes"][1]["verdict"], "incomplete");
    EXPECT_EQ(result.summary["nodes"][1]["findings"][0]["cause"], "configuration");
}

TEST(OnlyHardwareDrains, SoftwareErrorBesideAHardwareFailureDrainsOnlyTheHardware) {
    TempDir temp;
    auto traces = healthy_traces(3, 1);
    TestResult& wrong = test_named(traces[1], "stream");  // hardware: a wrong answer drains at once
    wrong.status = Status::fail;
    wrong.reason = "triad: a[17] = 3.5, expected 4.0 (validation)";
    TestResult& pingpong = test_named(traces[2], "mpi_pingpong");
    pingpong.status = Status::error;
    pingpong.reason = "MPI_Recv: MPI_ERR_TRUNCATE";  // software (no cause recorded: an error defaults to software)
    const Analysis result = analyze(temp, write_run(temp.path() / "run", traces));
    EXPECT_EQ(result.exit_code, 2) << result.out;
    EXPECT_EQ(drain_lines(result.drain), 1) << result.drain;
    EXPECT_NE(result.drain.find("NodeName=node0001 "), std::string::npos) << result.drain;
    EXPECT_EQ(result.drain.find("node0002"), std::string::npos) << result.drain;
}

TEST(OnlyHardwareDrains, HealthyRunHasNothingToFix) {
    TempDir temp;
    const Analysis result = analyze(temp, write_run(temp.path() / "run", healthy_traces(2, 1)));
    EXPECT_EQ(result.exit_code, 0) << result.out;
    EXPECT_EQ(result.out.find("To fix"), std::string::npos) << result.out;
    EXPECT_EQ(result.summary["counts"]["findings"]["to_fix"], 0);
}

TEST(OnlyHardwareDrains, NodeNamesWithUnderscoresAreDrained) {
    TempDir temp;
    auto traces = healthy_traces(2, 1);
    traces[0].header.node = "gpu_node00";
    traces[1].header.node = "gpu_node01";
    TestResult& wrong = test_named(traces[1], "stream");  // a wrong answer: drains without a confirmation run
    wrong.status = Status::fail;
    wrong.reason = "triad: a[17] = 3.5, expected 4.0 (validation)";
    const Analysis result = analyze(temp, write_run(temp.path() / "run", traces));
    EXPECT_EQ(result.exit_code, 1) << result.out;
    EXPECT_NE(result.drain.find("scontrol update NodeName=gpu_node01 State=DRAIN"), std::string::npos) << result.drain;
    EXPECT_EQ(drain_lines(result.drain), 1) << result.drain;
}

}  // namespace
}  // namespace shakedown::analysis
