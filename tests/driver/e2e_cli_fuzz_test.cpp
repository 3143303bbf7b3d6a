// The command lines fuzzed, bounded: random argument vectors built from the real options of
// `shakedown run`, `shakedown slurm generate` and `shakedown-analyze` and hostile values (empty,
// inf, nan, huge, negative, escape codes, a 300-byte name, /dev/zero, a folder, a FIFO), seeded so
// a failure reproduces. Every one must end by itself with a documented exit code (0-4), never a
// signal or a hang, a refusal (exit 2) must say something on its first line, and nothing printed
// carries a raw escape character or carriage return.
#include "core/process_runner.hpp"
#include "process.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace shakedown::testing {
namespace {

class CliFuzz : public ::testing::Test {
protected:
    void SetUp() override {
        folder_ = std::filesystem::temp_directory_path() / ("shakedown-cli-fuzz-" + std::to_string(::getpid()));
        std::filesystem::remove_all(folder_);
        std::filesystem::create_directories(folder_ / "out");
        ASSERT_EQ(::mkfifo((folder_ / "fifo").c_str(), 0600), 0);
    }
    void TearDown() override { std::filesystem::remove_all(folder_); }

    std::vector<std::string> values() const {
        return {"",      "inf",   "nan",   "-1",        "0",  "1e400", "99999999999999999999", "\x1b[2J\rVerdict: PASS",
                std::string(300, 'n'), "/dev/zero", folder_.string(), (folder_ / "fifo").string(), "node[1-3]x", "quick",
                "stream,,", "a b", "--tests", "2x2", "host", "../../etc"};
    }

    // Runs `seeds` random command lines of `base` + options from `options`; checks each ending.
    void fuzz(const std::vector<std::string>& base, const std::vector<std::string>& options, int seeds) {
        const auto hostile = values();
        for (int seed = 1; seed <= seeds; ++seed) {
            std::mt19937 random(static_cast<unsigned>(seed));
            std::vector<std::string> argv = base;
            const int count = 1 + static_cast<int>(random() % 4);
            for (int k = 0; k < count; ++k) {
                argv.push_back(options[random() % options.size()]);
                if (random() % 5 != 0) argv.push_back(hostile[random() % hostile.size()]);
            }
            argv.push_back("--out");
            argv.push_back((folder_ / "out").string());
            const ProcessResult result = run_process(argv, 60.0);
            const std::string line = describe_command(argv);
            EXPECT_LE(result.exit_code, 4) << "seed " << seed << ": " << line << "\n" << result.output.substr(0, 2000);
            if (result.exit_code == 2) EXPECT_FALSE(result.output.empty()) << "seed " << seed << ": " << line;
            EXPECT_LT(result.seconds, 59.0) << "seed " << seed << ": " << line;
            // Values echoed in a refusal are escaped: no escape sequence or carriage return of
            // theirs reaches the terminal.
            EXPECT_EQ(result.output.find_first_of("\x1b\r"), std::string::npos) << "seed " << seed << ": " << line;
        }
    }

    std::filesystem::path folder_;
};

// Values the driver refuses before MPI starts, or runs that end quickly (--tests with nothing
// real in it): no run is meant to measure anything here.
TEST_F(CliFuzz, ShakedownRunEndsWithADocumentedExitCode) {
    fuzz({SHAKEDOWN_DRIVER, "run", "--no-telemetry", "--tests", "topology"},
         {"--suite", "--exclude", "--config", "--name", "--tag", "--profile", "--gpus-per-node", "--progress", "--bogus"},
         40);
}

TEST_F(CliFuzz, ShakedownAnalyzeEndsWithADocumentedExitCode) {
    fuzz({SHAKEDOWN_ANALYZER, (folder_ / "out").string()},
         {"--thresholds", "--baseline", "--topology", "--profile", "--price-per-node-hour", "--price-per-node-month",
          "--format", "--summary", "--junit", "--html", "--drain", "--confirmation", "--confirm", "--quiet", "--bogus"},
         60);
}

TEST_F(CliFuzz, SlurmGenerateEndsWithADocumentedExitCode) {
    fuzz({SHAKEDOWN_DRIVER, "slurm", "generate", "--script", (folder_ / "job.sbatch").string()},
         {"--nodes", "--nodelist", "--partition", "--time", "--suite", "--gpus-per-node", "--ranks-per-node",
          "--launcher", "--launcher-args", "--run-args", "--analyzer-args", "--analysis-reserve", "--bogus"},
         40);
}

}  // namespace
}  // namespace shakedown::testing
