#include "history_fixtures.hpp"

#include "analysis_fixtures.hpp"
#include "bench/run_folder_writer.hpp"
#include "telemetry/telemetry_columns.hpp"
#include "trace/run_manifest.hpp"

#include <fmt/format.h>

#include <vector>

namespace shakedown::analysis::testing {
namespace {

namespace health = telemetry_columns::gpu_health;

// Counters read at three times during the run; every counter constant except ECC when planted.
SampleTable health_table(double start, bool rising) {
    SampleTable table(health::columns());
    const double ecc_before = 2;
    for (int i = 0; i < 3; ++i) {
        std::vector<double> row;
        for (const auto& column : table.columns()) {
            const std::string& name = column.name;
            double value = 0;
            if (name == telemetry_columns::time || name == health::counters_time) value = start + i;
            else if (name == health::ecc_sbe_volatile) value = ecc_before + (rising && i == 2 ? planted_ecc_rise : 0);
            else if (name == health::pcie_replay) value = 10;
            else if (name == health::nvlink_links || name == health::nvlink_links_up) value = 18;
            else if (name == health::fabric_state) value = 3;
            row.push_back(value);
        }
        table.add_row(std::move(row));
    }
    return table;
}

}  // namespace

double healthy_triad(int node) { return 7.5 + 0.1 * (node == 2) - 0.1 * (node == 1); }

std::string history_gpu_uuid(int node) { return fmt::format("GPU-hist-{:04d}", node); }

std::filesystem::path write_history_run(const std::filesystem::path& dir, const HistoryRunSpec& spec) {
    std::filesystem::create_directories(dir);
    constexpr int nodes = 3;
    std::vector<std::string> node_of_rank;
    for (int node = 0; node < nodes; ++node) {
        const std::string name = fmt::format("node{:04d}", node);
        Trace trace = healthy_trace(node, nodes, name);
        trace.header.run_id = spec.run_id;
        trace.header.run_uuid = spec.run_uuid;
        trace.header.start_utc = spec.start_utc;
        double triad = healthy_triad(node);
        const bool planted = spec.planted && name == planted_node;
        if (planted) triad *= planted_slowdown;
        metric_named(trace, planted_metric).value = triad;
        const std::string table = telemetry_columns::gpu_health_table(0);
        trace.telemetry[table] = health_table(spec.start_utc, planted);
        trace.telemetry_attributes[table] = {{std::string(health::gpu_uuid_attribute), history_gpu_uuid(node)}};
        if (name == planted_node) {
            SampleTable aer({{std::string(telemetry_columns::time), "s"},
                             {fmt::format("{}.aer_correctable", aer_device), "count"},
                             {fmt::format("{}.aer_fatal", aer_device), "count"}});
            aer.add_row({spec.start_utc, 3, 0});
            aer.add_row({spec.start_utc + 2, 3, spec.aer_fatal_rise});
            trace.telemetry["pcie_aer"] = aer;
        }
        node_of_rank.push_back(name);
        bench::write_trace_file(dir / default_trace_file_name(node), trace);
    }
    nlohmann::json manifest = bench::make_run_json(spec.run_id, {"stream", "mpi_pingpong"}, node_of_rank);
    RunManifest parsed = parse_run_manifest(manifest, "");
    parsed.run_uuid = spec.run_uuid;
    parsed.start_utc = spec.start_utc;
    parsed.end_utc = spec.start_utc + 600;
    bench::write_run_json(dir, to_json(parsed));
    return dir;
}

}  // namespace shakedown::analysis::testing
