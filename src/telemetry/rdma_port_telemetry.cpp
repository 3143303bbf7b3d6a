#include "telemetry/rdma_port_telemetry.hpp"
#include "telemetry/telemetry_source.hpp"

#include "core/clock.hpp"
#include "telemetry/rdma_port_names.hpp"
#include "telemetry/telemetry_columns.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

namespace shakedown {
namespace {


enum class CounterKind { error, traffic };

struct CounterSpec {
    const char* folder;  // "counters" (IB PortCounters, also on RoCE) or "hw_counters" (driver's own)
    const char* file;
    CounterKind kind;
    const char* unit;
};

// The counters an acceptance run cares about. Errors: any increase is a finding (the analyzer's
// allowance per counter is 0 unless configured). Traffic: context only. hw_counters are the
// mlx5 names; other drivers simply lack the files.
constexpr std::array<CounterSpec, 27> counter_table{{
    {"counters", "symbol_error", CounterKind::error, "1"},
    {"counters", "link_error_recovery", CounterKind::error, "1"},
    {"counters", "link_downed", CounterKind::error, "1"},
    {"counters", "port_rcv_errors", CounterKind::error, "1"},
    {"counters", "port_rcv_remote_physical_errors", CounterKind::error, "1"},
    {"counters", "port_rcv_switch_relay_errors", CounterKind::error, "1"},
    {"counters", "port_xmit_discards", CounterKind::error, "1"},
    {"counters", "port_xmit_constraint_errors", CounterKind::error, "1"},
    {"counters", "port_rcv_constraint_errors", CounterKind::error, "1"},
    {"counters", "local_link_integrity_errors", CounterKind::error, "1"},
    {"counters", "excessive_buffer_overrun_errors", CounterKind::error, "1"},
    {"counters", "VL15_dropped", CounterKind::error, "1"},
    {"counters", "port_xmit_data", CounterKind::traffic, "4B"},  // PMA data counters count 4-octet words
    {"counters", "port_rcv_data", CounterKind::traffic, "4B"},
    {"counters", "port_xmit_packets", CounterKind::traffic, "1"},
    {"counters", "port_rcv_packets", CounterKind::traffic, "1"},
    {"counters", "port_xmit_wait", CounterKind::traffic, "ticks"},
    {"hw_counters", "out_of_buffer", CounterKind::error, "1"},        // receive WQEs exhausted: drops
    {"hw_counters", "out_of_sequence", CounterKind::error, "1"},      // RoCE: lost packets
    {"hw_counters", "packet_seq_err", CounterKind::error, "1"},
    {"hw_counters", "local_ack_timeout_err", CounterKind::error, "1"},
    {"hw_counters", "rnr_nak_retry_err", CounterKind::error, "1"},
    {"hw_counters", "implied_nak_seq_err", CounterKind::error, "1"},
    {"hw_counters", "req_cqe_error", CounterKind::error, "1"},
    {"hw_counters", "resp_cqe_error", CounterKind::error, "1"},
    {"hw_counters", "rx_icrc_encapsulated", CounterKind::error, "1"},  // RoCE ICRC failures
    {"hw_counters", "np_cnp_sent", CounterKind::traffic, "1"},         // congestion notifications
}};

constexpr std::size_t leading_columns = 4;  // counters_t, state, phys_state, rate_gbps

bool is_number(const std::string& name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

std::vector<std::filesystem::path> sorted_folders(const std::filesystem::path& folder) {
    std::vector<std::filesystem::path> found;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(folder, error))
        if (entry.is_directory(error)) found.push_back(entry.path());
    std::sort(found.begin(), found.end());
    return found;
}

}  // namespace

RdmaPortTelemetry::RdmaPortTelemetry(std::string rdma_device, int port, const std::filesystem::path& port_dir,
                                     std::chrono::steady_clock::duration read_period)
    : rdma_device_(std::move(rdma_device)),
      port_(port),
      device_(rdma_port_table_name(rdma_device_, port)),
      link_layer_(first_line_of((port_dir / "link_layer").string())),
      pkeys_(read_pkey_table(port_dir)),
      state_((port_dir / "state").string()),
      phys_state_((port_dir / "phys_state").string()),
      rate_((port_dir / "rate").string()),
      reads_(read_period) {
    for (const CounterSpec& spec : counter_table) {
        KernelFile file((port_dir / spec.folder / spec.file).string());
        if (!file.is_open()) continue;  // absent on this driver or link layer: no column
        std::string name = spec.kind == CounterKind::error ? std::string(rdma_error_column_prefix) + spec.file : spec.file;
        counters_.push_back(Counter{{std::move(name), spec.unit}, std::move(file)});
    }
    reading_.assign(leading_columns + counters_.size(), not_available);
}

std::vector<SampleTable::Column> RdmaPortTelemetry::columns() const {
    std::vector<SampleTable::Column> columns{{std::string(telemetry_columns::time), "s"},
                                             {std::string(rdma_counters_time_column), "s"},
                                             {std::string(rdma_port_state_column), "1"},
                                             {"phys_state", "1"},  // 5 LinkUp, 3 Disabled, 2 Polling, ...
                                             {"rate_gbps", "Gb/s"}};
    for (const Counter& counter : counters_) columns.push_back(counter.column);
    return columns;
}

void RdmaPortTelemetry::read_sysfs(double t) {
    reading_[0] = t;
    reading_[1] = state_.read_number(buffer_).value_or(not_available);
    reading_[2] = phys_state_.read_number(buffer_).value_or(not_available);
    reading_[3] = rate_.read_number(buffer_).value_or(not_available);
    for (std::size_t i = 0; i < counters_.size(); ++i)
        reading_[leading_columns + i] = counters_[i].file.read_number(buffer_).value_or(not_available);
}

std::vector<double> RdmaPortTelemetry::final_sample() {
    reads_.renew();
    return sample();
}

std::vector<double> RdmaPortTelemetry::sample() {
    const double t = now_utc();
    if (reads_.due()) read_sysfs(t);
    std::vector<double> row;
    row.reserve(1 + reading_.size());
    row.push_back(t);
    row.insert(row.end(), reading_.begin(), reading_.end());
    return row;
}

std::map<std::string, std::string> RdmaPortTelemetry::attributes() const {
    std::map<std::string, std::string> facts{{"rdma_device", rdma_device_}, {"port", std::to_string(port_)}};
    if (!link_layer_.empty()) facts[std::string(rdma_link_layer_attribute)] = link_layer_;
    if (pkeys_.not_available) facts[std::string(rdma_pkeys_not_available_attribute)] = *pkeys_.not_available;
    else facts[std::string(rdma_pkeys_attribute)] = format_pkeys(pkeys_.valid);
    return facts;
}

std::vector<std::unique_ptr<TelemetrySource>> rdma_port_sources(const std::filesystem::path& sysfs_root,
                                                                 std::chrono::steady_clock::duration read_period) {
    std::vector<std::unique_ptr<TelemetrySource>> sources;
    for (const auto& device : sorted_folders(sysfs_root)) {
        std::vector<std::pair<int, std::filesystem::path>> ports;
        for (const auto& port : sorted_folders(device / "ports")) {
            const std::string name = port.filename().string();
            if (is_number(name) && name.size() < 6) ports.emplace_back(std::stoi(name), port);
        }
        std::sort(ports.begin(), ports.end());  // numerically: port 10 after port 2
        for (const auto& [number, folder] : ports)
            sources.push_back(std::make_unique<RdmaPortTelemetry>(device.filename().string(), number, folder, read_period));
    }
    return sources;
}

}  // namespace shakedown
