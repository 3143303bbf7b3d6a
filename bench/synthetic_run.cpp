#include "bench/synthetic_run.hpp"

#include "analysis/load/forked_workers.hpp"
#include "bench/run_folder_writer.hpp"
#include "comm/link_matrix_columns.hpp"
#include "core/errors.hpp"
#include "core/input_limits.hpp"
#include "core/registry.hpp"
#include "inventory/inventory_names.hpp"
#include "placement/placement_names.hpp"
#include "stats/summary.hpp"
#include "telemetry/telemetry_columns.hpp"
#include "trace/run_manifest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

namespace shakedown::bench {
namespace {

// What the fault knobs do to a metric.
enum class Sensitivity { throughput, latency, none };
// Where a metric's value comes from: every rank its own, one job-wide figure, or rank 0 only.
enum class Scope { rank, job, rank0 };

// A metric the synthetic run writes: its healthy value and how the knobs move it. Its unit and
// which way is better come from the test's declaration (core/test_spec.hpp), as in a real run.
struct SyntheticMetric {
    std::string name;
    double typical;  // a healthy unit's value
    double nominal;  // 0: the metric carries no nominal
    Sensitivity sensitivity;
    Scope scope = Scope::rank;
};

struct SyntheticTest {
    std::string key;
    std::vector<SyntheticMetric> metrics;
    bool gemm = false;  // slowed and power-capped on the throttled GPU
};

constexpr auto throughput = Sensitivity::throughput;
constexpr auto latency = Sensitivity::latency;

// Typical and nominal figures from the H200 reference measurements (shared/anchors).
std::vector<SyntheticTest> make_catalog() {
    std::vector<SyntheticTest> catalog;
    SyntheticTest stream{"stream", {}};
    for (const auto& [kernel, typical] : {std::pair{"copy", 4053.0}, {"scale", 4060.0}, {"add", 4350.0},
                                          {"triad", 4366.0}, {"dot", 4441.0}}) {
        stream.metrics.push_back({fmt::format("stream.{}_gbs", kernel), typical, 4814, throughput});
        stream.metrics.push_back({fmt::format("stream.{}_max_gbs", kernel), typical * 1.01, 4814, throughput});
    }
    catalog.push_back(std::move(stream));
    catalog.push_back({"dgemm_fp64",
                       {{"dgemm_fp64.tflops", 64.4, 67, throughput},
                        {"dgemm_fp64.tflops_max", 64.9, 67, throughput},
                        {"dgemm_fp64.tflops_min", 63.8, 67, throughput}},
                       true});
    SyntheticTest ladder{"gemm_ladder", {}, true};
    for (const auto& [precision, typical, nominal] :
         {std::tuple{"fp64", 64.4, 67.0}, {"fp32", 51.0, 67.0}, {"tf32", 415.3, 495.0}, {"bf16", 783.8, 990.0},
          {"fp16", 782.9, 990.0}, {"fp8", 1500.0, 1979.0}}) {
        ladder.metrics.push_back({fmt::format("gemm_ladder.{}_tflops", precision), typical, nominal, throughput});
        ladder.metrics.push_back({fmt::format("gemm_ladder.{}_tflops_max", precision), typical * 1.01, nominal, throughput});
    }
    catalog.push_back(std::move(ladder));
    catalog.push_back({"mpi_pingpong",
                       {{"mpi_pingpong.latency_us", 1.9, 0, latency},
                        {"mpi_pingpong.latency_p99_us", 2.6, 0, latency},
                        {"mpi_pingpong.leader_latency_us", 3.8, 0, latency},
                        {"mpi_pingpong.leader_latency_p99_us", 5.1, 0, latency}}});
    catalog.push_back({"nccl",
                       {{"nccl.all_reduce_busbw_gbs", 348.4, 0, throughput, Scope::job},
                        {"nccl.all_reduce_algbw_gbs", 348.4, 0, throughput, Scope::job},
                        {"nccl.all_reduce_busbw_8mib_gbs", 167.6, 0, throughput, Scope::job},
                        {"nccl.all_reduce_busbw_512mib_gbs", 313.7, 0, throughput, Scope::job},
                        {"nccl.all_reduce_latency_us", 14.5, 0, latency, Scope::job},
                        {"nccl.all_gather_busbw_gbs", 291.2, 0, throughput, Scope::job},
                        {"nccl.all_gather_algbw_gbs", 291.2, 0, throughput, Scope::job}}});
    catalog.push_back({"mpi_coll",
                       {{"mpi_coll.allreduce_busbw_gbs", 21.0, 0, throughput, Scope::job},
                        {"mpi_coll.allreduce_algbw_gbs", 11.0, 0, throughput, Scope::job},
                        {"mpi_coll.barrier_us", 9.5, 0, latency, Scope::job}}});
    catalog.push_back({"allpairs", {}});
    return catalog;
}

// The declaration of a test, as the driver would have it.
const TestSpec& declaration_of(const std::string& key) {
    const Test* test = Registry::instance().find(key);
    if (test == nullptr) throw std::logic_error(fmt::format("the synthetic run writes '{}', which no test declares", key));
    return test->spec();
}

// Units and directions from the declaration; a synthetic metric no test declares is a bug here.
TestResult declared(const std::string& key, TestResult result) {
    apply_declarations(declaration_of(key), result);
    if (result.status == Status::error) throw std::logic_error("synthetic run: " + result.reason);
    return result;
}

const std::vector<SyntheticTest>& catalog() {
    static const std::vector<SyntheticTest> tests = make_catalog();
    return tests;
}

constexpr double run_start_utc = 1764480000.0;
constexpr double seconds_per_test = 12.0;
constexpr double inter_node_gbs = 24.0;   // a 200 Gb/s port
constexpr double intra_node_gbs = 150.0;  // NVLink through MPI
constexpr double inter_node_us = 2.5;
constexpr double intra_node_us = 0.8;

// Deterministic jitter from a key (splitmix64): the same pair or rank gets the same figure on
// every rank that computes it, so rank 0's matrix and each rank's own view agree.
double unit_noise(std::uint64_t key) {
    std::uint64_t z = key + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) / static_cast<double>(1ull << 53);  // [0, 1)
}

const SyntheticTest& catalog_entry(const std::string& key) {
    for (const SyntheticTest& test : catalog())
        if (key == test.key) return test;
    throw InputError(fmt::format("unknown synthetic test '{}'", key));
}

std::vector<std::string> selected_tests(const SyntheticRunSpec& spec) {
    return spec.tests.empty() ? synthetic_test_keys() : spec.tests;
}

int node_of(const SyntheticRunSpec& spec, int rank) { return rank / spec.ranks_per_node; }

bool in_group(const SyntheticRunSpec& spec, int node) {
    return std::find(spec.slow_group.begin(), spec.slow_group.end(), node) != spec.slow_group.end();
}

// One measurement of an ordered rank pair of the allpairs matrix.
struct Link {
    bool intra_node;
    double latency_us;
    double bandwidth_gbs;
};

bool is_pair(const std::pair<int, int>& pair, int a, int b) {
    return (pair.first == a && pair.second == b) || (pair.first == b && pair.second == a);
}

Link link_between(const SyntheticRunSpec& spec, int src, int dst, int round) {
    const int a = node_of(spec, src);
    const int b = node_of(spec, dst);
    const bool intra = a == b;
    double factor = 1.0;
    if (!intra && round >= spec.link_faults_from_round) {
        if (spec.slow_node && (a == *spec.slow_node || b == *spec.slow_node)) factor *= spec.slow_node_link_factor;
        for (const auto& pair : spec.slow_links)
            if (is_pair(pair, a, b)) factor *= spec.slow_link_factor;
        for (const auto& [from, to] : spec.slow_directions)
            if (from == a && to == b) factor *= spec.slow_link_factor;
        if (in_group(spec, a) != in_group(spec, b)) factor *= spec.slow_group_factor;
    }
    // Each measurement its own draw (round 0 keeps the key of the single-round generator).
    const double noise =
        1.0 - spec.noise + 2.0 * spec.noise *
                               unit_noise(spec.seed * 7919 + static_cast<std::uint64_t>(src) * 65537 +
                                          static_cast<std::uint64_t>(dst) + static_cast<std::uint64_t>(round) * 1000003ull * 65537ull);
    const double bandwidth_gbs = (intra ? intra_node_gbs : inter_node_gbs) * factor * noise;
    const double latency_us = (intra ? intra_node_us : inter_node_us) * (factor < 1.0 ? 2.0 : 1.0) * (2.0 - noise);
    return {intra, latency_us, bandwidth_gbs};
}

// Every measurement of the matrix in the order allpairs records them, handed to `visit`.
template <typename Visit>
void for_each_measurement(const SyntheticRunSpec& spec, Visit&& visit) {
    for (int round = 0; round < spec.rounds; ++round)
        for (int src = 0; src < spec.ranks; ++src)
            for (int dst = 0; dst < spec.ranks; ++dst)
                if (src != dst) visit(src, dst, link_between(spec, src, dst, round));
}

// A row in the declared columns, by name: columns allpairs may add later are 0 here.
std::vector<double> matrix_row(const SampleTable& table, int src, int dst, const Link& link) {
    std::vector<double> row(table.columns().size(), 0.0);
    auto set = [&](std::string_view name, double value) {
        if (auto column = table.column_index(name)) row[*column] = value;
    };
    set(link_matrix_columns::src, src);
    set(link_matrix_columns::dst, dst);
    set(link_matrix_columns::intra_node, link.intra_node ? 1.0 : 0.0);
    set(link_matrix_columns::latency_us, link.latency_us);
    set(link_matrix_columns::bandwidth_gbs, link.bandwidth_gbs);
    return row;
}

// allpairs on one rank: its worst link against the job median, per link kind; rank 0 holds the matrix.
TestResult synthetic_allpairs(const SyntheticRunSpec& spec, int rank, double start_utc) {
    TestResult result;
    result.key = "allpairs";
    result.start_utc = start_utc;
    result.end_utc = start_utc + seconds_per_test - 1.0;
    result.samples = SampleTable(declaration_of("allpairs").samples);
    std::array<std::vector<double>, 2> job_bandwidth;  // [intra?]
    std::array<std::vector<double>, 2> job_latency;
    std::array<std::vector<double>, 2> my_bandwidth;
    std::array<std::vector<double>, 2> my_latency;
    for_each_measurement(spec, [&](int src, int dst, const Link& link) {
        const std::size_t kind = link.intra_node ? 1 : 0;
        job_bandwidth[kind].push_back(link.bandwidth_gbs);
        job_latency[kind].push_back(link.latency_us);
        if (src == rank || dst == rank) {
            my_bandwidth[kind].push_back(link.bandwidth_gbs);
            my_latency[kind].push_back(link.latency_us);
        }
        if (rank == 0) result.samples.add_row(matrix_row(result.samples, src, dst, link));
    });
    for (std::size_t kind = 0; kind < 2; ++kind) {
        if (my_bandwidth[kind].empty()) continue;
        const std::string prefix = kind == 1 ? "allpairs.intra_node_" : "allpairs.inter_node_";
        const double job_median = stats::median(job_bandwidth[kind]);
        const double my_min = *std::min_element(my_bandwidth[kind].begin(), my_bandwidth[kind].end());
        result.add_metric(prefix + "bandwidth_min_gbs", my_min);
        result.add_metric(prefix + "bandwidth_median_gbs", job_median);
        result.add_metric(prefix + "min_over_median", my_min / job_median);
        result.add_metric(prefix + "rank_median_over_median", stats::median(my_bandwidth[kind]) / job_median);
        result.add_metric(prefix + "latency_max_us", *std::max_element(my_latency[kind].begin(), my_latency[kind].end()));
        result.add_metric(prefix + "latency_median_us", stats::median(job_latency[kind]));
    }
    return declared("allpairs", std::move(result));
}

// The knobs' factor on a rank's throughput (latency: 1 / factor for the slow node).
double throughput_factor(const SyntheticRunSpec& spec, int rank, const SyntheticTest& test) {
    const int node = node_of(spec, rank);
    double factor = 1.0;
    if (spec.slow_node && *spec.slow_node == node) factor *= 0.5;
    if (spec.regressed_node && *spec.regressed_node == node) factor *= spec.regression_factor;
    if (test.gemm && spec.throttled_gpu && spec.throttled_gpu->node == node &&
        spec.throttled_gpu->gpu == rank % spec.ranks_per_node)
        factor *= 0.65;
    return factor;
}

double collective_time_ratio(const SyntheticRunSpec& spec, int rank) {
    double ratio = 0.97 + 0.06 * unit_noise(spec.seed * 104729 + static_cast<std::uint64_t>(rank));
    if (spec.slow_node && *spec.slow_node == node_of(spec, rank)) ratio *= 2.0;
    return ratio;
}

bool declares_device_parameter(const std::string& key) {
    const Test* declared = Registry::instance().find(key);
    if (declared == nullptr) return false;
    const auto& parameters = declared->spec().parameters;
    return std::any_of(parameters.begin(), parameters.end(),
                       [](const ParamSpec& parameter) { return parameter.name == placement::names::device; });
}

TestResult synthetic_test_result(const SyntheticRunSpec& spec, const SyntheticTest& entry, int rank, double start_utc,
                                 std::mt19937_64& random) {
    if (entry.key == "allpairs") return synthetic_allpairs(spec, rank, start_utc);
    std::normal_distribution<double> jitter(1.0, 0.01);
    TestResult result;
    result.key = entry.key;
    result.start_utc = start_utc;
    result.end_utc = start_utc + seconds_per_test - 1.0;
    result.measured = TimeWindow{start_utc + 1.0, result.end_utc - 1.0};  // the timed phase, as the tests record it
    result.parameters = {{"iterations", std::to_string(spec.sample_rows)}, {"synthetic", "true"}};
    if (entry.key == "dgemm_fp64") result.parameters["fill"] = "uniform";  // as the driver records it: calibration matches it
    // As the driver records it: a test that may run on the host or on its rank's GPU says where it ran.
    if (declares_device_parameter(entry.key))
        result.parameters[placement::names::device] = spec.gpus ? placement::names::ran_on_gpu
                                                                : placement::names::ran_on_host;
    const double factor = throughput_factor(spec, rank, entry);
    const bool slow_job = spec.slow_node.has_value();
    for (const SyntheticMetric& metric : entry.metrics) {
        if (metric.scope == Scope::rank0 && rank != 0) continue;
        double value = metric.typical;
        if (metric.scope == Scope::job) {
            value *= 0.99 + 0.02 * unit_noise(spec.seed * 31 + std::hash<std::string>{}(metric.name));
            if (slow_job) value = metric.sensitivity == latency ? value * 2.0 : value * 0.5;  // the job waits for the slow node
        } else {
            value *= std::clamp(jitter(random), 0.96, 1.04);
            if (metric.sensitivity == throughput) value *= factor;
            if (metric.sensitivity == latency && factor <= 0.5) value *= 2.0;
        }
        const std::optional<double> nominal = metric.nominal > 0 ? std::optional<double>(metric.nominal) : std::nullopt;
        result.add_metric(metric.name, value, nominal);
    }
    if (entry.key == "mpi_coll") {
        result.add_metric("mpi_coll.rank_time_ratio", collective_time_ratio(spec, rank));
        if (rank == 0) {
            int slowest = 0;
            for (int other = 1; other < spec.ranks; ++other)
                if (collective_time_ratio(spec, other) > collective_time_ratio(spec, slowest)) slowest = other;
            result.add_metric("mpi_coll.slowest_rank", slowest);
            result.add_metric("mpi_coll.slowest_rank_ratio", collective_time_ratio(spec, slowest));
        }
    }
    // Rows with the declared columns: a counter first, then figures around the first metric's.
    result.samples = SampleTable(declaration_of(entry.key).samples);
    const double reference = result.metrics.empty() ? 1.0 : result.metrics.front().value;
    for (int row = 0; row < spec.sample_rows; ++row) {
        std::vector<double> values(result.samples.columns().size(), 0.0);
        for (std::size_t column = 0; column < values.size(); ++column)
            values[column] = column == 0 ? static_cast<double>(row) : reference * std::clamp(jitter(random), 0.9, 1.1);
        result.samples.add_row(std::move(values));
    }
    return declared(entry.key, std::move(result));
}

// The GPU's identity, the same in the inventory, its telemetry table and run.json.
std::string synthetic_gpu_uuid(const std::string& node, int index) { return fmt::format("GPU-{}-{:04d}", node, index); }

// What a node's leader records (inventory/inventory_names.hpp): the same everywhere but for the
// drift the spec plants on this node.
nlohmann::json synthetic_inventory(const std::string& node, int gpus, bool other_driver, bool other_hca_firmware) {
    namespace names = inventory_names;
    const std::string driver = other_driver ? "570.86.15" : "580.95.05";
    nlohmann::json gpu_list = nlohmann::json::array();
    nlohmann::json nvml_devices = nlohmann::json::array();
    for (int index = 0; index < gpus; ++index) {
        gpu_list.push_back({{names::gpu::index, index},
                            {names::gpu::name, "NVIDIA H200"},
                            {names::gpu::uuid, synthetic_gpu_uuid(node, index)},
                            {"pci_bus_id", fmt::format("00000000:{:02X}:00.0", 0x18 + 0x20 * index)},
                            {"sm_count", 132},
                            {"compute_capability", "9.0"},
                            {"max_sm_clock_mhz", 1980},
                            {"memory_clock_mhz", 3201},
                            {"memory_bus_width_bits", 6016},
                            {"memory_bytes", 150754820096LL}});
        nvml_devices.push_back({{names::nvml::nvml_index, index},
                                {names::gpu::name, "NVIDIA H200"},
                                {names::gpu::uuid, synthetic_gpu_uuid(node, index)},
                                {names::nvml::vbios_version, "96.00.99.00.01"}});
    }
    nlohmann::json flags = {"sse3", "sse4_2", "avx", "avx2", "fma", "avx512f", "avx512dq", "avx512bw", "avx512vl"};
    nlohmann::json hcas = nlohmann::json::array();
    for (const char* hca : {"mlx5_0", "mlx5_1"})
        hcas.push_back({{names::rdma::name, hca}, {names::rdma::fw_ver, other_hca_firmware ? "28.39.1002" : "28.43.1014"}});
    return {{names::cpu::section,
             {{names::cpu::model, "Intel(R) Xeon(R) Platinum 8480+"},
              {"sockets", 2},
              {"cores", 112},
              {"pus", 224},
              {"max_mhz", 3800},
              {names::cpu::flags, flags}}},
            {"memory", {{"total_bytes", 2164663517184LL}}},
            {names::os::section, {{names::os::pretty_name, "Ubuntu 24.04.3 LTS"}, {names::os::kernel, "6.8.0-87-generic"}}},
            {names::board::section, {{names::board::bios_version, "2.3.6"}}},
            {names::gpu::section, gpu_list},
            {names::nvml::section, {{names::nvml::driver_version, driver}, {names::nvml::devices, nvml_devices}}},
            {"network", {{{"name", "eth0"}, {"mtu", 9000}, {"speed_mbps", 100000}, {"operstate", "up"}},
                         {{"name", "ib0"}, {"mtu", 4092}, {"speed_mbps", 400000}, {"operstate", "up"}}}},
            {names::rdma::section, hcas},
            {names::blas::section, {{"library", "openblas"}, {names::blas::openblas_core, "SkylakeX"}, {"openblas_config", "OpenBLAS 0.3.26"}}},
            {names::versions::section,
             {{names::versions::mpi, "Open MPI 4.1.6"},
              {"hdf5", "1.10.10"},
              {names::versions::cuda, "13.0"},
              {names::versions::nccl, "2.28.3"},
              {names::versions::nvidia_driver, driver}}}};
}

// The test windows of the run, for telemetry that shows load (and throttling) inside them.
struct Window {
    double start;
    double end;
    bool gemm;
};

SampleTable gpu_telemetry(const std::vector<Window>& windows, double start, double end, double hz, bool throttled,
                          double capped_share, std::mt19937_64& random) {
    std::uniform_real_distribution<double> wobble(-1.0, 1.0);
    SampleTable table(telemetry_columns::gpu::columns());
    double energy_j = 5e7;  // the counter since the driver loaded: each reading's power over its period
    for (double t = start; t < end; t += 1.0 / hz) {
        const Window* inside = nullptr;
        for (const Window& window : windows)
            if (t >= window.start && t <= window.end) inside = &window;
        const bool busy = inside != nullptr;
        bool capped = false;
        if (throttled && busy && inside->gemm)
            capped = (t - inside->start) / (inside->end - inside->start) < capped_share;
        const double power = capped ? 700.0 : busy ? 610.0 + 15.0 * wobble(random) : 90.0 + 5.0 * wobble(random);
        const double clock = capped ? 1410.0 + 10.0 * wobble(random) : busy ? 1965.0 + 10.0 * wobble(random) : 1980.0;
        const double temperature = (busy ? 62.0 : 40.0) + (capped ? 6.0 : 0.0) + 2.0 * wobble(random);
        table.add_row({t, temperature, power, 700.0, clock, 3201.0, capped ? 4.0 : 0.0, capped ? 1.0 : 0.0, 0.0, 0.0, 0.0,
                       0.0, 0.0, busy ? 96.0 : 0.0, busy ? 60.0 : 0.0, busy ? 1.2e11 : 5e8, energy_j});
        energy_j += power / hz;
    }
    return table;
}

SampleTable host_telemetry(double start, double end, double hz, std::mt19937_64& random) {
    std::uniform_real_distribution<double> wobble(-1.0, 1.0);
    SampleTable table(telemetry_columns::host::columns());
    // The CPU packages' energy counter (RAPL): two packages at about 400 W together.
    double package_energy_j = 0.0;
    for (double t = start; t < end; t += 1.0 / hz) {
        table.add_row({t, 8.0 + wobble(random), 3500.0 + 50.0 * wobble(random), 55.0 + 3.0 * wobble(random), 1.9e12,
                       package_energy_j});
        package_energy_j += (400.0 + 10.0 * wobble(random)) / hz;
    }
    return table;
}

}  // namespace

std::vector<std::string> synthetic_test_keys() {
    std::vector<std::string> keys;
    for (const SyntheticTest& test : catalog())
        if (test.key != "allpairs") keys.push_back(test.key);
    return keys;
}

std::vector<std::string> all_synthetic_test_keys() {
    std::vector<std::string> keys;
    for (const SyntheticTest& test : catalog()) keys.push_back(test.key);
    return keys;
}

std::string synthetic_node_name(int node_index) { return fmt::format("node{:04d}", node_index); }

Trace make_synthetic_trace(const SyntheticRunSpec& spec, int rank) {
    const int node_index = node_of(spec, rank);
    const int local_rank = rank % spec.ranks_per_node;
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
    const auto planted_on = [&](const std::vector<int>& nodes) {
        return std::find(nodes.begin(), nodes.end(), node_index) != nodes.end();
    };
    trace.inventory = synthetic_inventory(trace.header.node, spec.gpus ? spec.ranks_per_node : 0,
                                          planted_on(spec.other_driver_nodes), planted_on(spec.other_hca_firmware_nodes));
    const std::vector<std::string> keys = selected_tests(spec);
    std::vector<Window> windows;
    double clock = run_start_utc + 5.0;
    for (const std::string& key : keys) {
        const SyntheticTest& entry = catalog_entry(key);
        trace.tests.push_back(synthetic_test_result(spec, entry, rank, clock, random));
        windows.push_back({trace.tests.back().start_utc, trace.tests.back().end_utc, entry.gemm});
        clock += seconds_per_test;
    }
    if (local_rank == 0) {  // the node leader samples every device of its node
        trace.telemetry["host"] = host_telemetry(run_start_utc, clock + 5.0, spec.telemetry_hz, random);
        for (int gpu = 0; spec.gpus && gpu < spec.ranks_per_node; ++gpu) {
            const bool throttled =
                spec.throttled_gpu && spec.throttled_gpu->node == node_index && spec.throttled_gpu->gpu == gpu;
            const std::string table = telemetry_columns::gpu_table(static_cast<unsigned>(gpu));
            trace.telemetry[table] = gpu_telemetry(windows, run_start_utc, clock + 5.0, spec.telemetry_hz, throttled,
                                                   spec.throttled_gpu ? spec.throttled_gpu->power_capped_share : 0.0, random);
            trace.telemetry_attributes[table] = {{std::string(telemetry_columns::gpu_uuid_attribute),
                                                  synthetic_gpu_uuid(trace.header.node, gpu)}};
        }
    }
    trace.events = {{run_start_utc, Severity::info, "run started"},
                    {clock, Severity::info, fmt::format("{} tests finished", keys.size())}};
    trace.status = TraceStatus::complete;
    trace.end_utc = clock + 1.0;
    return trace;
}

namespace {

// Rank 0 holds every measurement: ranks squared times rounds rows.
void check_matrix_size(const SyntheticRunSpec& spec) {
    if (spec.ranks > 512)
        throw InputError("allpairs with more than 512 ranks: the synthetic link matrix grows with ranks squared (rank 0 writes every pair)");
    if (static_cast<std::int64_t>(spec.ranks) * (spec.ranks - 1) * spec.rounds > (std::int64_t{1} << 20))
        throw InputError(fmt::format("allpairs with {} ranks and {} rounds: more than 2^20 rows in the link matrix", spec.ranks,
                                     spec.rounds));
}

}  // namespace

void check_synthetic_spec(const SyntheticRunSpec& spec) {
    if (spec.ranks < 1) throw InputError("--ranks must be at least 1");
    // The analyzer refuses a larger world (run.json and every trace record it), so such a run
    // would be written only to be refused.
    if (spec.ranks > input_limits::max_world_size)
        throw InputError(fmt::format("--ranks {} is more than a run can hold ({})", spec.ranks, input_limits::max_world_size));
    if (spec.ranks_per_node < 1) throw InputError("--ranks-per-node must be at least 1");
    if (spec.gpus && spec.ranks_per_node > input_limits::max_gpus_per_node)
        throw InputError(fmt::format("--ranks-per-node {} binds more GPUs per node than a run can hold ({}); "
                                     "--no-gpus writes host-only ranks",
                                     spec.ranks_per_node, input_limits::max_gpus_per_node));
    for (const std::string& key : selected_tests(spec)) catalog_entry(key);  // unknown names fail before any file
    const int nodes = (spec.ranks + spec.ranks_per_node - 1) / spec.ranks_per_node;
    auto check_node = [&](int node, const char* option) {
        if (node < 0 || node >= nodes) throw InputError(fmt::format("{} {} is outside 0..{}", option, node, nodes - 1));
    };
    auto check_factor = [](double factor, const char* option) {
        if (!(factor > 0.0 && factor <= 1.0)) throw InputError(fmt::format("{} must be in (0, 1], got {}", option, factor));
    };
    if (spec.slow_node) check_node(*spec.slow_node, "--slow-node");
    if (spec.regressed_node) check_node(*spec.regressed_node, "--regressed-node");
    for (const auto& [first, second] : spec.slow_links) {
        check_node(first, "--slow-link");
        check_node(second, "--slow-link");
        if (first == second) throw InputError("--slow-link needs two different nodes");
    }
    for (const auto& [from, to] : spec.slow_directions) {
        check_node(from, "--slow-direction");
        check_node(to, "--slow-direction");
        if (from == to) throw InputError("--slow-direction needs two different nodes");
    }
    for (int node : spec.slow_group) check_node(node, "--slow-group");
    check_factor(spec.slow_node_link_factor, "--slow-node-link-factor");
    check_factor(spec.slow_link_factor, "--slow-link-factor");
    check_factor(spec.slow_group_factor, "--slow-group-factor");
    if (!(spec.noise >= 0.0 && spec.noise < 1.0)) throw InputError(fmt::format("--noise must be in [0, 1), got {}", spec.noise));
    if (spec.rounds < 1 || spec.rounds > 100) throw InputError(fmt::format("--rounds must be 1 to 100, got {}", spec.rounds));
    if (spec.link_faults_from_round < 0 || spec.link_faults_from_round >= spec.rounds)
        throw InputError(fmt::format("--link-faults-from-round must be 0 to {} (the matrix's rounds less one), got {}",
                                     spec.rounds - 1, spec.link_faults_from_round));
    if (spec.throttled_gpu) {
        check_node(spec.throttled_gpu->node, "--throttled-gpu node");
        if (spec.throttled_gpu->gpu < 0 || spec.throttled_gpu->gpu >= spec.ranks_per_node)
            throw InputError(fmt::format("--throttled-gpu GPU {} is outside 0..{}", spec.throttled_gpu->gpu,
                                         spec.ranks_per_node - 1));
    }
    const auto tests = selected_tests(spec);
    if (std::find(tests.begin(), tests.end(), "allpairs") != tests.end()) check_matrix_size(spec);
}

SampleTable synthetic_link_matrix(const SyntheticRunSpec& spec) {
    check_synthetic_spec(spec);
    check_matrix_size(spec);
    SampleTable matrix(declaration_of("allpairs").samples);
    for_each_measurement(spec, [&](int src, int dst, const Link& link) { matrix.add_row(matrix_row(matrix, src, dst, link)); });
    return matrix;
}

namespace {

// Refuses a run whose remaining files would not fit on the disk, from what the first node's
// files (`written` ranks: the leader and plain ranks) took.
void check_disk_space(const std::filesystem::path& out_dir, const SyntheticRunSpec& spec, int written) {
    std::uintmax_t leader_bytes = 0;
    std::uintmax_t rank_bytes = 0;
    for (int rank = 0; rank < written; ++rank) {
        const std::uintmax_t bytes = std::filesystem::file_size(out_dir / trace_relative_path(rank));
        if (rank == 0) leader_bytes = bytes;
        else rank_bytes = std::max(rank_bytes, bytes);
    }
    const std::uintmax_t nodes = static_cast<std::uintmax_t>((spec.ranks + spec.ranks_per_node - 1) / spec.ranks_per_node);
    const std::uintmax_t needed = leader_bytes * (nodes - 1) + rank_bytes * static_cast<std::uintmax_t>(spec.ranks - written - (nodes - 1));
    std::error_code error;
    const std::filesystem::space_info space = std::filesystem::space(out_dir, error);
    if (!error && needed > space.available)
        throw InputError(fmt::format("{} ranks need about {:.1f} GB more in {} ({} bytes per leader, {} per other rank); "
                                     "{:.1f} GB are free",
                                     spec.ranks, needed / 1e9, out_dir.string(), leader_bytes, rank_bytes,
                                     space.available / 1e9));
}

}  // namespace

void write_synthetic_run(const std::filesystem::path& out_dir, const SyntheticRunSpec& spec, int jobs) {
    check_synthetic_spec(spec);
    const auto tests = selected_tests(spec);
    std::error_code error;
    if (std::filesystem::exists(out_dir, error) && !std::filesystem::is_empty(out_dir, error))
        throw InputError(fmt::format("{} exists and is not empty: not writing a run into it", out_dir.string()));
    std::filesystem::create_directories(out_dir, error);
    if (error) throw InputError(fmt::format("cannot create {}: {}", out_dir.string(), error.message()));

    std::vector<std::string> node_of_rank;
    std::vector<int> gpu_of_rank;
    std::vector<std::string> gpu_uuid_of_rank;
    std::vector<std::string> gpu_name_of_rank;
    for (int rank = 0; rank < spec.ranks; ++rank) {
        node_of_rank.push_back(synthetic_node_name(node_of(spec, rank)));
        gpu_of_rank.push_back(spec.gpus ? rank % spec.ranks_per_node : -1);
        gpu_uuid_of_rank.push_back(spec.gpus ? synthetic_gpu_uuid(node_of_rank.back(), gpu_of_rank.back()) : "");
        gpu_name_of_rank.push_back(spec.gpus ? "NVIDIA H200" : "");
    }
    // The traces where the driver places them (trace/run_manifest.hpp), block folders made first.
    nlohmann::json manifest = make_run_json(spec.run_id, tests, node_of_rank, "complete", gpu_of_rank, gpu_uuid_of_rank,
                                            gpu_name_of_rank, TraceLayout::blocks);
    for (int rank = 0; rank < spec.ranks; rank += ranks_per_trace_folder) {
        std::filesystem::create_directories(out_dir / trace_block_folder(rank), error);
        if (error)
            throw InputError(fmt::format("cannot create {}: {}", (out_dir / trace_block_folder(rank)).string(), error.message()));
    }
    auto write_rank = [&](int rank) { write_trace_file(out_dir / trace_relative_path(rank), make_synthetic_trace(spec, rank)); };
    // The first node's files tell what the run will take (a leader with telemetry, then plain
    // ranks): a run the disk cannot hold is refused before hours of writing fill it.
    const int first_node_ranks = std::min(spec.ranks, spec.ranks_per_node);
    for (int rank = 0; rank < first_node_ranks; ++rank) write_rank(rank);
    check_disk_space(out_dir, spec, first_node_ranks);
    // The other ranks in `jobs` forked writer processes (HDF5 writes one file at a time per process).
    std::optional<std::string> failure;
    run_forked({.count = static_cast<std::size_t>(spec.ranks - first_node_ranks),
                .jobs = jobs,
                .work =
                    [&](std::size_t index) {
                        write_rank(first_node_ranks + static_cast<int>(index));
                        return std::vector<std::uint8_t>{};
                    },
                .take = [](std::size_t, std::span<const std::uint8_t>) {},
                .lost =
                    [&](std::size_t index, const std::string& why) {
                        if (!failure) failure = fmt::format("rank {}: {}", first_node_ranks + index, why);
                    }});
    if (failure) throw InputError(*failure);
    write_run_json(out_dir, manifest);
}

}  // namespace shakedown::bench
