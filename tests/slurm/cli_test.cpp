// The `shakedown slurm` subcommands end to end through the small CLI program: exit codes and
// the one-line messages for bad input (exit 2).
#include "fake_slurm.hpp"
#include "slurm/process.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

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
}

TEST_F(SlurmCli, GenerateWritesAFile) {
    const auto script = (fake_.folder() / "job.sbatch").string();
    const auto result = cli({"slurm", "generate", "-N", "2", "--out", out(), "--script", script});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(std::filesystem::is_regular_file(script));
}

TEST_F(SlurmCli, SubmitReportsTheJobId) {
    const auto result = cli({"slurm", "submit", "-N", "2", "--partition", "batch", "--out", out()});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(contains(result.out, "submitted job 4242")) << result.out;
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
