// Shared by the trace tests: a scratch folder per test and a trace with something in every
// part of the layout, so each test starts from a realistic file.
#pragma once

#include "trace/trace_format.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

namespace shakedown::trace_test {

// A fresh folder under the system temp dir, removed with everything in it at the end.
class ScratchDir {
public:
    ScratchDir() {
        std::random_device seed;
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        path_ = std::filesystem::temp_directory_path() /
                (std::string("shakedown-trace-") + (info != nullptr ? info->name() : "test") + "-" +
                 std::to_string(seed()));
        std::filesystem::create_directories(path_);
    }
    ~ScratchDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

private:
    std::filesystem::path path_;
};

inline std::string file_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline TraceHeader sample_header(int rank = 3) {
    TraceHeader header;
    header.shakedown_version = "0.1.0";
    header.run_id = "20261130T053924Z-ab12";
    header.rank = rank;
    header.world_size = 8;
    header.node = "node017";
    header.local_rank = rank % 4;
    header.start_utc = 1795930764.25;
    return header;
}

inline const char* sample_config() { return "suite: quick\ntests: []\ndeadline_s: 600\nfaults: []\n"; }

inline nlohmann::json sample_inventory() {
    return nlohmann::json::parse(R"({
      "cpu": {"model": "Intel(R) Xeon(R) Platinum 8480+", "sockets": 2, "cores": 112, "pus": 224,
              "max_mhz": 3800.0, "flags": ["avx2", "fma", "avx512f"]},
      "memory": {"total_bytes": 2164123456789},
      "gpus": [
        {"index": 0, "name": "NVIDIA H200", "uuid": "GPU-1234", "pci_bus_id": "0000:19:00.0", "sm_count": 132,
         "compute_capability": "9.0", "max_sm_clock_mhz": 1980, "memory_bytes": 150754820096},
        {"index": 1, "name": "NVIDIA H200", "uuid": "GPU-5678", "pci_bus_id": "0000:3b:00.0", "sm_count": 132,
         "compute_capability": "9.0", "max_sm_clock_mhz": 1980, "memory_bytes": 150754820096}],
      "network": [],
      "blas": {"library": "openblas", "openblas_core": "Prescott", "openblas_config": null},
      "versions": {"mpi": "Open MPI v4.1.4", "hdf5": "1.10.8", "cuda": null},
      "flags": {"nvml": false, "verbs": true},
      "numbers": {"negative": -42, "big_unsigned": 18446744073709551615, "pi": 3.141592653589793,
                  "mixed": [1, 2.5, -3], "bools": [true, false, true], "int_list": [4, 5, 6]},
      "odd keys": {"a/b": 1, ".hidden": "dot", "": "empty key", "100%": "percent"},
      "nested arrays": [[1, 2], [], ["x", 3], null, {"k": [{"deep": true}]}],
      "empty_object": {}
    })");
}

inline TestResult sample_stream_result() {
    TestResult result;
    result.key = "host_stream";
    result.status = Status::pass;
    result.start_utc = 1795930765.0;
    result.end_utc = 1795930767.5;
    result.parameters = {{"array_mib", "64"}, {"repeats", "10"}, {"threads", "2"}};
    result.metrics.push_back(Metric{"host_stream.triad_gbs", "GB/s", static_cast<double>(12.34), 20.0, Better::higher});
    result.metrics.push_back(Metric{"host_stream.copy_gbs", "GB/s", static_cast<double>(11.0), std::nullopt, Better::higher});
    SampleTable samples({{"repeat", ""}, {"seconds", "s"}, {"bandwidth", "GB/s"}});
    samples.add_row({0, 0.1, 12.0});
    samples.add_row({1, 0.09, 12.5});
    samples.add_row({2, 0.095, 12.3});
    result.samples = samples;
    return result;
}

inline TestResult sample_pingpong_result() {
    TestResult result;
    result.key = "mpi_pingpong";
    result.start_utc = 1795930768.0;
    result.end_utc = 1795930770.0;
    result.parameters = {{"sizes", "8,1024,1048576"}};
    result.metrics.push_back(Metric{"mpi_pingpong.latency_us", "us", static_cast<double>(1.7), 1.0, Better::lower});
    result.fail("payload mismatch at byte 17 of 1024 from rank 1");
    SampleTable samples({{"size", "B"}, {"peer", ""}, {"latency", "us"}});
    samples.add_row({8, 1, 1.7});
    samples.add_row({1024, 1, 2.9});
    result.samples = samples;
    return result;
}

}  // namespace shakedown::trace_test
