// Shared pieces of the end-to-end tests: a scratch folder per test and small configs that
// keep the quick suite to a few seconds per test on a 2-core CI machine.
#pragma once

#include "process.hpp"
#include "trace/run_manifest.hpp"  // trace_relative_path: where a rank's trace lies in a run folder

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace shakedown::testing {

// Small sizes for every test of the quick suite, so CI runs the real suite quickly.
inline const std::string small_params = R"(
params:
  stream: {array_mib: 4, repetitions: 3}
  dgemm_fp64: {n: 192, repetitions: 2}
  stencil3d: {local_n: 24, steps: 4, triad_mib: 4, triad_repetitions: 2}
  cg_fp64: {local_n: 12, triad_mib: 4, triad_repetitions: 2}
  mpi_pingpong: {sizes: "8,1024", iterations_small: 200, warmup_small: 5, batch: 20}
  train_step: {steps: 3, warmup_steps: 1}
)";

// These tests check the pipeline (validation, traces, verdicts), not this shared CI machine's
// speed: the analyzer's performance rules are tested on hand-made traces in tests/analysis.
// The metrics section comes last: a test adds its own keys to it by appending lines.
inline const std::string speed_rules_off = R"(
# train_step's ranks compared with each other alone and against their prediction: speed too.
scaling: {slow_rank_ratio: 100, slow_rank_fail_ratio: 100, shortfall_warn: 0.01}
metrics:
  stream.triad_gbs: {}
  dgemm_fp64.tflops: {}
  dgemm_fp64.core_peak_gflops: {}
)";

class ScratchFolder {
public:
    explicit ScratchFolder(const std::string& name)
        : path_(std::filesystem::temp_directory_path() / ("shakedown-e2e-" + name + "-" + std::to_string(::getpid()))) {
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~ScratchFolder() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    const std::filesystem::path& path() const { return path_; }

    std::filesystem::path write(const std::string& name, const std::string& text) const {
        const auto file = path_ / name;
        std::ofstream(file) << text;
        return file;
    }

private:
    std::filesystem::path path_;
};

inline nlohmann::json read_json(const std::filesystem::path& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

inline std::size_t count_lines(const std::string& text) {
    std::size_t lines = 0;
    for (char c : text) lines += c == '\n' ? 1 : 0;
    return lines;
}

}  // namespace shakedown::testing
