// The `shakedown slurm` subcommands end to end through the small CLI program: exit codes and
// the one-line messages for bad input (exit 2).
#include "core/process_runner.hpp"
#include "fake_slurm.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>

#ifndef SHAKEDOWN_SLURM_CLI
#error "SHAKEDOWN_SLURM_CLI must name the shakedown-slurm-cli program"
#endif

namespace shakedown::slurm {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class SlurmCli : public ::testing::Test {
protected:
    // The fake sbatch/sinfo come first in PATH for the child process.
    void SetUp() override {
        const char* path = std::getenv("PATH");
        saved_path_ = path != nullptr ? path : "";
        ::setenv("PATH", (fake_.folder().string() + ":" + saved_path_).c_str(), 1);
        // An analyzer in PATH, so that generate finds one wherever the CLI under test lies.
        write_executable(analyzer_in_path());
    }
    std::filesystem::path analyzer_in_path() const { return fake_.folder() / "shakedown-analyze"; }
    static void write_executable(const std::filesystem::path& path) {
        std::ofstream(path) << "#!/bin/sh\nexit 0\n";
        std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    }
    void TearDown() override { ::setenv("PATH", saved_path_.c_str(), 1); }

    ProcessResult cli(std::vector<std::string> arguments) {
        arguments.insert(arguments.begin(), SHAKEDOWN_SLURM_CLI);
        return run_process(arguments, 30.0);
    }
    std::string out() const { return (fake_.folder() / "runs").string(); }

    testing::FakeSlurm fake_;
    std::string saved_path_;
};

TEST_F(SlurmCli, GeneratePrintsTheScript) {
    const auto result = cli({"slurm", "generate", "--nodelist", "node[1-3]", "--out", out(), "--shakedown",
                             "/opt/bin/shakedown", "--launcher", "mpirun", "--launcher-args", "--mca btl self,tcp"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(contains(result.out, "#SBATCH --nodelist=node[1-3]\n")) << result.out;
    EXPECT_TRUE(contains(result.out, "'mpirun' '--map-by' 'ppr:1:node' '--mca' 'btl' 'self,tcp'")) << result.out;
    EXPECT_TRUE(contains(result.out, "shakedown='/opt/bin/shakedown'\n"));
    // Not beside /opt/bin/shakedown, not in a build tree: the one in PATH, by its full path.
    EXPECT_TRUE(contains(result.out, "analyzer='" + analyzer_in_path().string() + "'\n")) << result.out;
}

// The job ran every test and failed its verdict with exit 127: now it is never generated.
TEST_F(SlurmCli, NoAnalyzerAnywhereIsRefusedAtGenerateTime) {
    std::filesystem::remove(analyzer_in_path());
    ::setenv("PATH", fake_.folder().c_str(), 1);
    const auto script = fake_.folder() / "job.sbatch";
    const auto result = cli({"slurm", "generate", "-N", "2", "--out", out(), "--shakedown", "/opt/bin/shakedown",
                             "--script", script.string()});
    EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_TRUE(contains(result.err, "shakedown-analyze not found (looked at /opt/bin/shakedown-analyze, its build tree, PATH)"))
        << result.err;
    EXPECT_FALSE(std::filesystem::exists(script));
}

TEST_F(SlurmCli, AnalyzerBesideShakedownIsTheOneTheJobRuns) {
    const auto prefix = fake_.folder() / "prefix" / "bin";
    std::filesystem::create_directories(prefix);
    write_executable(prefix / "shakedown");
    write_executable(prefix / "shakedown-analyze");
    const auto result = cli({"slurm", "generate", "-N", "2", "--out", out(), "--shakedown", (prefix / "shakedown").string()});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(contains(result.out, "analyzer='" + (prefix / "shakedown-analyze").string() + "'\n")) << result.out;
}

TEST_F(SlurmCli, GeneratePutsSiteOptionsIntoSbatchLines) {
    const auto result = cli({"slurm", "generate", "-N", "2", "--out", out(), "-A", "acceptance", "-q", "high",
                             "--reservation", "maint", "-C", "a100&ib", "-x", "node[7-8]",
                             "--sbatch-args=--mem=0 --gres gpu:8", "--signal", "120"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    for (const auto* line : {"#SBATCH --account=acceptance\n", "#SBATCH --qos=high\n", "#SBATCH --reservation=maint\n",
                             "#SBATCH --constraint=a100&ib\n", "#SBATCH --exclude=node[7-8]\n", "#SBATCH --exclusive\n",
                             "#SBATCH --mem=0\n", "#SBATCH --gres gpu:8\n", "#SBATCH --signal=B:USR1@120\n"})
        EXPECT_TRUE(contains(result.out, line)) << line << result.out;
    const auto shared = cli({"slurm", "generate", "-N", "2", "--out", out(), "--no-exclusive"});
    EXPECT_EQ(shared.exit_code, 0) << shared.err;
    EXPECT_FALSE(contains(shared.out, "#SBATCH --exclusive")) << shared.out;
}

TEST_F(SlurmCli, GenerateWritesAFile) {
    const auto script = (fake_.folder() / "job.sbatch").string();
    const auto result = cli({"slurm", "generate", "-N", "2", "--out", out(), "--script", script});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(std::filesystem::is_regular_file(script));
}

// A script of that name exists (an earlier job's, or any file the operator named by mistake): it
// is left as it was, and the refusal is one line with exit 2.
TEST_F(SlurmCli, GenerateNeverOverwritesAFile) {
    const auto script = fake_.folder() / "job.sbatch";
    { std::ofstream(script) << "earlier job\n"; }
    const auto result = cli({"slurm", "generate", "-N", "2", "--out", out(), "--script", script.string()});
    EXPECT_EQ(result.exit_code, 2) << result.out;
    EXPECT_TRUE(contains(result.err, "exists already; shakedown never overwrites one")) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    std::ifstream in(script);
    const std::string kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(kept, "earlier job\n");
}

TEST_F(SlurmCli, SubmitReportsTheJobId) {
    const auto result = cli({"slurm", "submit", "-N", "2", "--partition", "batch", "--out", out()});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(contains(result.out, "submitted job 4242")) << result.out;
}

// The job runs on and on: --wait gives up at --wait-timeout with one line saying what squeue
// last saw, and exit code 4 (no verdict), never a verdict code.
TEST_F(SlurmCli, SubmitWaitTimeoutWithFakeSlurmIsOneLineAndNoVerdict) {
    fake_.set_squeue_states({"PENDING|Resources|", "RUNNING|None|node[1-2]"});
    const auto result = cli({"slurm", "submit", "-N", "2", "--out", out(), "--wait", "--wait-timeout", "1"});
    EXPECT_EQ(result.exit_code, 4) << result.out << result.err;
    EXPECT_TRUE(contains(result.out, "submitted job 4242")) << result.out;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_TRUE(contains(result.err, "shakedown: gave up waiting for job 4242 after 1 s")) << result.err;
    EXPECT_TRUE(contains(result.err, "last seen RUNNING on node[1-2], from squeue")) << result.err;
}

// The job's script ran to its end with the analyzer's 3, and its slurm_nodes.txt says node3 went
// down: the command exits 3 and names node3.
TEST_F(SlurmCli, SubmitWaitWithFakeSlurmGivesTheVerdictAndNamesADownNode) {
    fake_.set_squeue_states({"RUNNING|None|node[1-3]", "FAILED|NonZeroExitCode|node[1-3]"});
    fake_.set_scontrol_job("JobId=4242 JobState=FAILED Reason=NonZeroExitCode ExitCode=3:0 NodeList=node[1-3]");
    std::filesystem::create_directories(fake_.folder() / "runs" / "quick-job4242");
    std::ofstream(fake_.folder() / "runs" / "quick-job4242" / "slurm_nodes.txt")
        << "# shakedown slurm_nodes v1\nnode1 allocated none\nnode3 down* Not responding\n";
    const auto result = cli({"slurm", "submit", "-N", "3", "--out", out(), "--wait"});
    EXPECT_EQ(result.exit_code, 3) << result.out << result.err;
    EXPECT_TRUE(contains(result.out, "shakedown: job 4242 ended with exit code 3\n")) << result.out;
    EXPECT_TRUE(contains(result.out, "shakedown: Slurm reported node node3 down* during job 4242 (Not responding)\n"))
        << result.out;
    EXPECT_FALSE(contains(result.out, "node node1")) << result.out;
}

TEST_F(SlurmCli, SubmitWaitWithFakeSlurmSaysWhenSlurmEndedTheJob) {
    fake_.set_squeue_states({"RUNNING|None|node[1-3]", "NODE_FAIL|NodeDown|node[1-3]"});
    fake_.set_scontrol_job("JobId=4242 JobState=NODE_FAIL Reason=NodeDown ExitCode=0:0 NodeList=node[1-3]");
    const auto result = cli({"slurm", "submit", "-N", "3", "--out", out(), "--wait"});
    EXPECT_EQ(result.exit_code, 4) << result.out << result.err;
    EXPECT_TRUE(contains(result.err, "shakedown: job 4242 ended NODE_FAIL (reason NodeDown) on node[1-3]")) << result.err;
}

struct BadCall {
    std::vector<std::string> arguments;
    std::string message;
};

TEST_F(SlurmCli, BadInputIsOneLineAndExitCode2) {
    const std::vector<BadCall> calls = {
        {{"slurm", "generate", "--nodelist", "node[3-1]"}, "invalid hostlist 'node[3-1]': range '3-1' runs backwards"},
        {{"slurm", "generate", "--nodelist", "node["}, "invalid hostlist 'node[': '[' without a matching ']'"},
        {{"slurm", "generate", "-N", "2", "--time=-5"}, "time limit '-5' is negative"},
        {{"slurm", "generate", "-N", "2", "--time", "0"}, "time limit '0' is zero"},
        {{"slurm", "generate", "-N", "2", "--suite", "fast"}, "unknown suite 'fast'"},
        {{"slurm", "generate", "-N", "2", "--launcher", "aprun"}, "unknown launcher 'aprun'"},
        {{"slurm", "generate", "-N", "two"}, "shakedown: "},
        {{"slurm", "generate"}, "--nodes N or --nodelist"},
        {{"slurm", "generate", "-N", "2", "--config", "/nonexistent.yaml"}, "--config '/nonexistent.yaml' is not a file"},
        {{"slurm", "submit", "-N", "2", "--partition", "gpu", "--out", "OUT"}, "unknown partition 'gpu': Slurm knows debug, batch"},
        {{"slurm", "submit", "-N", "2", "--out", "OUT", "--wait-timeout", "60"}, "--wait-timeout requires --wait"},
        {{"slurm", "submit", "-N", "2", "--out", "OUT", "--wait", "--wait-timeout", "0"}, "--wait-timeout 0 must be at least 1 second"},
        {{"slurm", "generate", "-N", "2", "--time", "10", "--analysis-reserve", "600"}, "--analysis-reserve 600 s leaves no time"},
        {{"slurm", "generate", "-N", "2", "--analyzer", "/nonexistent/shakedown-analyze"},
         "--analyzer '/nonexistent/shakedown-analyze' is not an executable file"},
        {{"slurm", "generate", "-N", "2", "--sbatch-args=--comment=$(reboot)"}, "--sbatch-args: '--comment=$(reboot)' contains '$'"},
        {{"slurm", "generate", "-N", "2", "--sbatch-args=--time=5"}, "set by shakedown's own options"},
        {{"slurm", "generate", "-N", "2", "--account", "a;b"}, "invalid --account 'a;b'"},
        {{"slurm", "generate", "-N", "2", "--time", "5", "--signal", "300"}, "--signal 300 must be"},
    };
    for (auto call : calls) {
        for (auto& word : call.arguments)
            if (word == "OUT") word = out();
        const auto result = cli(call.arguments);
        EXPECT_EQ(result.exit_code, 2) << call.message << "\n" << result.out << result.err;
        EXPECT_TRUE(contains(result.err, call.message)) << result.err;
        EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    }
}

}  // namespace
}  // namespace shakedown::slurm
