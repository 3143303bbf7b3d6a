#include "bench/synthetic_run.hpp"

#include "bench/run_folder_writer.hpp"
#include "core/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

namespace shakedown::bench {
namespace {

// What a slow node does to a metric.
enum class Sensitivity { throughput, latency, none };

struct SyntheticMetric {
    const char* quantity;  // metric name = "<test>.<quantity>"
    const char* unit;
    double typical;        // a healthy node's value
    double nominal;        // 0: the metric carries no nominal
    Better better;
    Sensitivity sensitivity;
};

struct SyntheticTest {
    const char* key;
    std::array<SyntheticMetric, 6> metrics;
    std::array<SampleTable::Column, 4> sample_columns;
};

// Typical and nominal figures from the H200 reference measurements (shared/anchors).
const std::array<SyntheticTest, 5> catalog{{
    {"stream",
     {{{"copy_gbs", "GB/s", 4053, 4814, Better::higher, Sensitivity::throughput},
       {"scale_gbs", "GB/s", 4060, 4814, Better::higher, Sensitivity::throughput},
       {"add_gbs", "GB/s", 4350, 4814, Better::higher, Sensitivity::throughput},
       {"triad_gbs", "GB/s", 4366, 4814, Better::higher, Sensitivity::throughput},
       {"dot_gbs", "GB/s", 4441, 4814, Better::higher, Sensitivity::throughput},
       {"max_rel_error", "", 1e-15, 0, Better::lower, Sensitivity::none}}},
     {{{"array_bytes", "B"}, {"iteration", ""}, {"seconds", "s"}, {"triad_gbs", "GB/s"}}}},
    {"dgemm_fp64",
     {{{"tflops", "TFLOP/s", 64.4, 67, Better::higher, Sensitivity::throughput},
       {"time_s", "s", 0.017, 0, Better::lower, Sensitivity::latency},
       {"matrix_n", "", 8192, 0, Better::higher, Sensitivity::none},
       {"max_rel_error", "", 2e-14, 0, Better::lower, Sensitivity::none},
       {"power_w", "W", 690, 700, Better::lower, Sensitivity::none},
       {"sm_clock_mhz", "MHz", 1980, 1980, Better::higher, Sensitivity::none}}},
     {{{"n", ""}, {"iteration", ""}, {"seconds", "s"}, {"tflops", "TFLOP/s"}}}},
    {"gemm_bf16",
     {{{"tflops", "TFLOP/s", 783.8, 990, Better::higher, Sensitivity::throughput},
       {"time_s", "s", 0.0014, 0, Better::lower, Sensitivity::latency},
       {"matrix_n", "", 8192, 0, Better::higher, Sensitivity::none},
       {"max_rel_error", "", 3e-3, 0, Better::lower, Sensitivity::none},
       {"power_w", "W", 695, 700, Better::lower, Sensitivity::none},
       {"sm_clock_mhz", "MHz", 1755, 1980, Better::higher, Sensitivity::none}}},
     {{{"n", ""}, {"iteration", ""}, {"seconds", "s"}, {"tflops", "TFLOP/s"}}}},
    {"mpi_pingpong",
     {{{"latency_us", "us", 1.9, 0, Better::lower, Sensitivity::latency},
       {"latency_p99_us", "us", 2.6, 0, Better::lower, Sensitivity::latency},
       {"leader_latency_us", "us", 3.8, 0, Better::lower, Sensitivity::latency},
       {"leader_latency_p99_us", "us", 5.1, 0, Better::lower, Sensitivity::latency},
       {"bandwidth_gbs", "GB/s", 45.2, 50, Better::higher, Sensitivity::throughput},
       {"message_rate_mmps", "Mmsg/s", 8.4, 0, Better::higher, Sensitivity::throughput}}},
     {{{"bytes", "B"}, {"peer", ""}, {"iteration", ""}, {"half_round_trip_us", "us"}}}},
    {"nccl_allreduce",
     {{{"busbw_gbs", "GB/s", 348.4, 478, Better::higher, Sensitivity::throughput},
       {"algbw_gbs", "GB/s", 348.4, 0, Better::higher, Sensitivity::throughput},
       {"busbw_8mib_gbs", "GB/s", 167.6, 0, Better::higher, Sensitivity::throughput},
       {"small_latency_us", "us", 14.5, 0, Better::lower, Sensitivity::latency},
       {"max_rel_error", "", 1e-6, 0, Better::lower, Sensitivity::none},
       {"time_s", "s", 0.049, 0, Better::lower, Sensitivity::latency}}},
     {{{"bytes", "B"}, {"iteration", ""}, {"seconds", "s"}, {"busbw_gbs", "GB/s"}}}},
}};

const std::array<SampleTable::Column, 10> gpu_telemetry_columns{{{"t", "s"},
                                                                 {"temperature", "C"},
                                                                 {"power", "W"},
                                                                 {"sm_clock", "MHz"},
                                                                 {"memory_clock", "MHz"},
                                                                 {"throttle_reasons", "bitmask"},
                                                                 {"ecc_corrected", "count"},
                                                                 {"ecc_uncorrected", "count"},
                                                                 {"utilization_gpu", "%"},
                                                                 {"utilization_memory", "%"}}};
const std::array<SampleTable::Column, 5> host_telemetry_columns{
    {{"t", "s"}, {"load_1m", ""}, {"cpufreq", "MHz"}, {"temperature", "C"}, {"memory_used", "B"}}};

constexpr double run_start_utc = 1764480000.0;
constexpr double seconds_per_test = 12.0;

const SyntheticTest& catalog_entry(const std::string& key) {
    for (const SyntheticTest& test : catalog)
        if (key == test.key) return test;
    throw InputError(fmt::format("unknown synthetic test '{}'", key));
}

std::vector<std::string> selected_tests(const SyntheticRunSpec& spec) {
    return spec.tests.empty() ? synthetic_test_keys() : spec.tests;
}

nlohmann::json synthetic_inventory(const std::string& node, int gpus) {
    nlohmann::json gpu_list = nlohmann::json::array();
    for (int index = 0; index < gpus; ++index)
        gpu_list.push_back({{"index", index},
                            {"name", "NVIDIA H200"},
                            {"uuid", fmt::format("GPU-{}-{:04d}", node, index)},
                            {"pci_bus_id", fmt::format("00000000:{:02X}:00.0", 0x18 + 0x20 * index)},
                            {"sm_count", 132},
                            {"compute_capability", "9.0"},
                            {"max_sm_clock_mhz", 1980},
                            {"memory_clock_mhz", 3201},
                            {"memory_bus_width_bits", 6016},
                            {"memory_bytes", 150754820096LL}});
    nlohmann::json flags = {"sse4_2", "avx", "avx2", "fma", "avx512f", "avx512dq", "avx512bw", "avx512vl"};
    return {{"cpu", {{"model", "Intel(R) Xeon(R) Platinum 8480+"},
                     {"sockets", 2},
                     {"cores", 112},
                     {"pus", 224},
                     {"max_mhz", 3800},
                     {"flags", flags}}},
            {"memory", {{"total_bytes", 2164663517184LL}}},
            {"os", {{"name", "Ubuntu 24.04.3 LTS"}, {"kernel", "6.8.0-87-generic"}}},
            {"gpus", gpu_list},
            {"network", {{{"name", "eth0"}, {"mtu", 9000}, {"speed_mbps", 100000}, {"operstate", "up"}},
                         {{"name", "ib0"}, {"mtu", 4092}, {"speed_mbps", 400000}, {"operstate", "up"}}}},
            {"blas", {{"library", "openblas"}, {"openblas_core", "SkylakeX"}, {"openblas_config", "OpenBLAS 0.3.26"}}},
            {"versions", {{"mpi", "Open MPI 4.1.6"}, {"hdf5", "1.10.10"}, {"cuda", "13.0"}, {"nccl", "2.28.3"}}}};
}

TestResult synthetic_test_result(const SyntheticTest& entry, double start_utc, bool slow, int sample_rows,
                                 std::mt19937_64& random) {
    std::normal_distribution<double> jitter(1.0, 0.01);
    TestResult result;
    result.key = entry.key;
    result.start_utc = start_utc;
    result.end_utc = start_utc + seconds_per_test - 1.0;
    result.parameters = {{"iterations", std::to_string(sample_rows)}, {"synthetic", "true"}};
    for (const SyntheticMetric& metric : entry.metrics) {
        double value = metric.typical * std::clamp(jitter(random), 0.96, 1.04);
        if (slow && metric.sensitivity == Sensitivity::throughput) value *= 0.5;
        if (slow && metric.sensitivity == Sensitivity::latency) value *= 2.0;
        const std::optional<double> nominal = metric.nominal > 0 ? std::optional<double>(metric.nominal) : std::nullopt;
        result.add_metric(fmt::format("{}.{}", entry.key, metric.quantity), metric.unit, value, metric.better, nominal);
    }
    result.samples = SampleTable({entry.sample_columns.begin(), entry.sample_columns.end()});
    const double reference = result.metrics.front().value;
    for (int row = 0; row < sample_rows; ++row)
        result.samples.add_row({std::pow(2.0, row % 24), static_cast<double>(row), 0.01 * (row + 1),
                                reference * std::clamp(jitter(random), 0.9, 1.1)});
    return result;
}

template <std::size_t N>
SampleTable synthetic_telemetry(const std::array<SampleTable::Column, N>& columns, double start_utc, double seconds,
                                double hz, std::mt19937_64& random) {
    std::uniform_real_distribution<double> wobble(0.97, 1.03);
    SampleTable table({columns.begin(), columns.end()});
    const int rows = static_cast<int>(seconds * hz);
    for (int row = 0; row < rows; ++row) {
        std::vector<double> values(columns.size());
        values[0] = start_utc + row / hz;
        for (std::size_t column = 1; column < columns.size(); ++column) values[column] = 50.0 * column * wobble(random);
        table.add_row(std::move(values));
    }
    return table;
}

}  // namespace

std::vector<std::string> synthetic_test_keys() {
    std::vector<std::string> keys;
    for (const SyntheticTest& test : catalog) keys.emplace_back(test.key);
    return keys;
}

std::string synthetic_node_name(int node_index) { return fmt::format("node{:04d}", node_index); }

Trace make_synthetic_trace(const SyntheticRunSpec& spec, int rank) {
    const int node_index = rank / spec.ranks_per_node;
    const int local_rank = rank % spec.ranks_per_node;
    const bool slow = spec.slow_node && *spec.slow_node == node_index;
    std::mt19937_64 random(spec.seed * 1000003 + static_cast<std::uint64_t>(rank));

    Trace trace;
    trace.header = {.shakedown_version = SHAKEDOWN_VERSION,
                    .run_id = spec.run_id,
                    .rank = rank,
                    .world_size = spec.ranks,
                    .node = synthetic_node_name(node_index),
                    .local_rank = local_rank,
                    .start_utc = run_start_utc};
    trace.config_yaml = "suite: synthetic\ntelemetry: {enabled: true, rate_hz: 10}\n";
    trace.inventory = synthetic_inventory(trace.header.node, spec.ranks_per_node);
    const std::vector<std::string> keys = selected_tests(spec);
    double clock = run_start_utc + 5.0;
    for (const std::string& key : keys) {
        trace.tests.push_back(synthetic_test_result(catalog_entry(key), clock, slow, spec.sample_rows, random));
        clock += seconds_per_test;
    }
    if (local_rank == 0) {  // the node leader samples every device of its node
        trace.telemetry["host"] =
            synthetic_telemetry(host_telemetry_columns, run_start_utc, spec.telemetry_seconds, spec.telemetry_hz, random);
        for (int gpu = 0; gpu < spec.ranks_per_node; ++gpu)
            trace.telemetry[fmt::format("gpu{}", gpu)] = synthetic_telemetry(
                gpu_telemetry_columns, run_start_utc, spec.telemetry_seconds, spec.telemetry_hz, random);
    }
    trace.events = {{run_start_utc, Severity::info, "run started"},
                    {clock, Severity::info, fmt::format("{} tests finished", keys.size())}};
    trace.status = TraceStatus::complete;
    trace.end_utc = clock + 1.0;
    return trace;
}

void write_synthetic_run(const std::filesystem::path& out_dir, const SyntheticRunSpec& spec) {
    if (spec.ranks < 1) throw InputError("--ranks must be at least 1");
    if (spec.ranks_per_node < 1) throw InputError("--ranks-per-node must be at least 1");
    for (const std::string& key : selected_tests(spec)) catalog_entry(key);  // unknown names fail before any file
    const int nodes = (spec.ranks + spec.ranks_per_node - 1) / spec.ranks_per_node;
    if (spec.slow_node && (*spec.slow_node < 0 || *spec.slow_node >= nodes))
        throw InputError(fmt::format("--slow-node {} is outside 0..{}", *spec.slow_node, nodes - 1));
    std::error_code error;
    if (std::filesystem::exists(out_dir, error) && !std::filesystem::is_empty(out_dir, error))
        throw InputError(fmt::format("{} exists and is not empty: not writing a run into it", out_dir.string()));
    std::filesystem::create_directories(out_dir, error);
    if (error) throw InputError(fmt::format("cannot create {}: {}", out_dir.string(), error.message()));

    std::vector<std::string> node_of_rank;
    for (int rank = 0; rank < spec.ranks; ++rank) node_of_rank.push_back(synthetic_node_name(rank / spec.ranks_per_node));
    nlohmann::json manifest = make_run_json(spec.run_id, selected_tests(spec), node_of_rank);
    for (int rank = 0; rank < spec.ranks; ++rank)
        write_trace_file(out_dir / fmt::format("rank-{:05d}.h5", rank), make_synthetic_trace(spec, rank));
    write_run_json(out_dir, manifest);
}

}  // namespace shakedown::bench
