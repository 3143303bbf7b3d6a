#include "analysis/rules/health/telemetry_explanation.hpp"

#include "stats/summary.hpp"
#include "telemetry/telemetry_columns.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

namespace shakedown::analysis {
namespace {

namespace gpu_columns = telemetry_columns::gpu;
namespace host_columns = telemetry_columns::host;

// The rows of a telemetry table inside [start, end], and the last row before it (the base for
// counter increments).
struct WindowRows {
    std::vector<const std::vector<double>*> inside;
    const std::vector<double>* before = nullptr;
};

WindowRows rows_in(const SampleTable& table, double start, double end) {
    WindowRows rows;
    const auto t = table.column_index(telemetry_columns::time);
    if (!t) return rows;
    for (const auto& row : table.rows()) {
        if (row[*t] < start) rows.before = &row;
        else if (row[*t] <= end) rows.inside.push_back(&row);
    }
    return rows;
}

std::vector<double> column_in(const SampleTable& table, const WindowRows& rows, std::string_view name) {
    std::vector<double> values;
    if (const auto index = table.column_index(name))
        for (const auto* row : rows.inside)
            if (std::isfinite((*row)[*index])) values.push_back((*row)[*index]);
    return values;
}

double share_set(const std::vector<double>& flags) {
    if (flags.empty()) return 0.0;
    return static_cast<double>(std::count_if(flags.begin(), flags.end(), [](double v) { return v >= 0.5; })) /
           static_cast<double>(flags.size());
}

// A counter's increase over the window (from the last row before it, when there is one).
std::optional<double> increase(const SampleTable& table, const WindowRows& rows, std::string_view name) {
    const auto index = table.column_index(name);
    if (!index || rows.inside.empty()) return std::nullopt;
    const double first = rows.before != nullptr ? (*rows.before)[*index] : (*rows.inside.front())[*index];
    const double last = (*rows.inside.back())[*index];
    if (!std::isfinite(first) || !std::isfinite(last)) return std::nullopt;
    return last - first;
}

// NVML clocks-event bits, for traces that carry only the bitmask.
constexpr unsigned sw_power_cap = 0x4, hw_slowdown = 0x8, sw_thermal = 0x20, hw_thermal = 0x40, hw_power_brake = 0x80;

double bitmask_share(const SampleTable& table, const WindowRows& rows, unsigned bits) {
    std::vector<double> masks = column_in(table, rows, gpu_columns::throttle_reasons);
    std::vector<double> flags;
    for (double mask : masks) flags.push_back((static_cast<unsigned long long>(mask) & bits) != 0 ? 1.0 : 0.0);
    return share_set(flags);
}

double throttle_share(const SampleTable& table, const WindowRows& rows, std::string_view column, unsigned bits) {
    if (table.column_index(column)) return share_set(column_in(table, rows, column));
    return bitmask_share(table, rows, bits);
}

// The GPU's maximum SM clock from the leader's inventory: by UUID when known (the leader's CUDA
// ordinals need not be the rank's), else by ordinal.
std::optional<double> inventory_number(const nlohmann::json& inventory, const char* section, const char* key) {
    if (!inventory.is_object() || !inventory.contains(section) || !inventory[section].is_object()) return std::nullopt;
    const auto& value = inventory[section];
    if (!value.contains(key) || !value[key].is_number()) return std::nullopt;
    return value[key].get<double>();
}

std::string percent(double share) { return fmt::format("{:.0f} %", share * 100); }

// Error counters of other devices (RDMA ports: "mlx5_0_port1" with *_errors columns).
void add_port_errors(const NodeDetails& node, double start, double end, std::vector<std::string>& parts) {
    for (const auto& [device, table] : node.telemetry) {
        if (device == "host" || device.rfind("gpu", 0) == 0) continue;
        const WindowRows rows = rows_in(table, start, end);
        for (const auto& column : table.columns()) {
            if (column.name.find("error") == std::string::npos) continue;
            const auto delta = increase(table, rows, column.name);
            if (delta && *delta > 0) parts.push_back(fmt::format("{} {} +{}", device, column.name, format_number(*delta)));
        }
    }
}

WindowExplanation explain_gpu(const Finding& finding, const TestResult& test, const NodeDetails& node,
                              const AnalysisSettings& settings) {
    const std::optional<std::string> device = gpu_telemetry_table(node, finding.gpu_uuid, finding.gpu);
    if (!device) {
        const std::string which = finding.gpu_uuid.empty() ? fmt::format("GPU{}", *finding.gpu) : finding.gpu_uuid;
        return {fmt::format("no telemetry of {} on {}", which, finding.node), false, "", test.start_utc, test.end_utc};
    }
    // Named as the node's telemetry names it ("gpu1": NVML's order, the same for every rank).
    const std::string gpu = "GPU" + device->substr(3);
    WindowExplanation result{"", false, *device, test.start_utc, test.end_utc};
    const SampleTable& table = node.telemetry.at(*device);
    const WindowRows rows = rows_in(table, test.start_utc, test.end_utc);
    if (rows.inside.empty()) {
        result.text = fmt::format("no {} telemetry sample in the {} window", gpu, test.key);
        return result;
    }
    std::vector<std::string> parts;
    const std::array<std::tuple<std::string_view, unsigned, const char*>, 4> throttles{{
        {gpu_columns::power_capped, sw_power_cap, "power-capped"},
        {gpu_columns::thermal, sw_thermal | hw_thermal, "thermally throttled"},
        {gpu_columns::hw_slowdown, hw_slowdown, "in hardware slowdown"},
        {gpu_columns::hw_power_brake, hw_power_brake, "under the hardware power brake"},
    }};
    for (const auto& [column, bits, words] : throttles) {
        const double share = throttle_share(table, rows, column, bits);
        if (share >= settings.throttle_share())
            parts.push_back(fmt::format("{} {} of the {} window", words, percent(share), test.key));
    }
    if (!parts.empty()) parts.front() = fmt::format("{} {}", gpu, parts.front());

    const std::vector<double> clocks = column_in(table, rows, gpu_columns::sm_clock_mhz);
    const auto max_clock = gpu_max_sm_clock(node.inventory, finding);
    std::string clock_text;
    bool clock_low = false;
    if (!clocks.empty()) {
        const double clock = stats::median(clocks);
        clock_text = max_clock ? fmt::format("SM clock median {} of {} MHz", format_number(clock), format_number(*max_clock))
                               : fmt::format("SM clock median {} MHz", format_number(clock));
        clock_low = max_clock && clock < settings.clock_fraction() * *max_clock;
    }
    const std::vector<double> temperatures = column_in(table, rows, gpu_columns::temperature_c);
    const double hottest = temperatures.empty() ? NAN : *std::max_element(temperatures.begin(), temperatures.end());
    const bool hot = std::isfinite(hottest) && hottest > settings.temperature_limit();

    std::vector<std::string> coincided = parts;
    if (clock_low || (!parts.empty() && !clock_text.empty()))
        coincided.push_back(parts.empty() ? fmt::format("{} {}", gpu, clock_text) : clock_text);
    if (hot)
        coincided.push_back(fmt::format("{}temperature up to {} C (limit {} C)", coincided.empty() ? gpu + " " : "",
                                        format_number(hottest), format_number(settings.temperature_limit())));
    for (const auto& [column, words] :
         {std::pair{gpu_columns::ecc_corrected_total, "corrected"}, {gpu_columns::ecc_uncorrected_total, "uncorrected"}})
        if (const auto delta = increase(table, rows, column); delta && *delta > 0)
            coincided.push_back(fmt::format("{} ECC {} errors +{}", gpu, words, format_number(*delta)));
    add_port_errors(node, test.start_utc, test.end_utc, coincided);

    if (!coincided.empty()) {
        result.coincided = true;
        std::string text;
        for (const std::string& part : coincided) text += (text.empty() ? "" : ", ") + part;
        result.text = text;
    } else {
        result.text = fmt::format("{} telemetry in the {} window looks normal ({} samples: no throttling{}{})", gpu,
                                  test.key, rows.inside.size(), clock_text.empty() ? "" : ", " + clock_text,
                                  std::isfinite(hottest) ? fmt::format(", up to {} C", format_number(hottest)) : "");
    }
    return result;
}

WindowExplanation explain_host(const Finding& finding, const TestResult& test, const NodeDetails& node,
                               const AnalysisSettings& settings) {
    WindowExplanation result{"", false, "host", test.start_utc, test.end_utc};
    std::vector<std::string> coincided;
    auto table_entry = node.telemetry.find("host");
    std::string normal;
    if (table_entry != node.telemetry.end()) {
        const SampleTable& table = table_entry->second;
        const WindowRows rows = rows_in(table, test.start_utc, test.end_utc);
        if (!rows.inside.empty()) {
            const std::vector<double> mhz = column_in(table, rows, host_columns::cpu_mhz_mean);
            const auto max_mhz = inventory_number(node.inventory, "cpu", "max_mhz");
            if (!mhz.empty() && max_mhz && *max_mhz > 0) {
                const double clock = stats::median(mhz);
                const std::string text =
                    fmt::format("CPU clock median {} of {} MHz", format_number(clock), format_number(*max_mhz));
                if (clock < settings.clock_fraction() * *max_mhz) coincided.push_back(text);
                else normal = text;
            }
            const std::vector<double> load = column_in(table, rows, host_columns::loadavg_1m);
            const auto pus = inventory_number(node.inventory, "cpu", "pus");
            if (!load.empty() && pus && *pus > 0 && stats::median(load) > *pus)
                coincided.push_back(fmt::format("load average {} on {} hardware threads (oversubscribed)",
                                                format_number(stats::median(load)), format_number(*pus)));
            const std::vector<double> thermal = column_in(table, rows, host_columns::max_thermal_c);
            if (!thermal.empty()) {
                const double hottest = *std::max_element(thermal.begin(), thermal.end());
                if (hottest > settings.temperature_limit())
                    coincided.push_back(fmt::format("CPU temperature up to {} C (limit {} C)", format_number(hottest),
                                                    format_number(settings.temperature_limit())));
            }
        }
    }
    add_port_errors(node, test.start_utc, test.end_utc, coincided);
    if (!coincided.empty()) {
        result.coincided = true;
        for (const std::string& part : coincided) result.text += (result.text.empty() ? "" : ", ") + part;
    } else if (!normal.empty()) {
        result.text = fmt::format("host telemetry in the {} window looks normal ({})", test.key, normal);
    }
    (void)finding;
    return result;
}

}  // namespace

std::optional<double> gpu_max_sm_clock(const nlohmann::json& inventory, const Finding& finding) {
    if (!inventory.is_object() || !inventory.contains("gpus") || !inventory["gpus"].is_array()) return std::nullopt;
    for (const auto& entry : inventory["gpus"]) {
        if (!entry.is_object()) continue;
        const bool same = finding.gpu_uuid.empty() ? entry.value("index", -1) == finding.gpu.value_or(-1)
                                                   : entry.value("uuid", std::string()) == finding.gpu_uuid;
        if (same && entry.contains("max_sm_clock_mhz") && entry["max_sm_clock_mhz"].is_number())
            return entry["max_sm_clock_mhz"].get<double>();
    }
    return std::nullopt;
}

WindowExplanation explain_window(const Finding& finding, const TestResult& test, const NodeDetails& node,
                                 const AnalysisSettings& settings) {
    if (!node.problem.empty())
        return {fmt::format("no telemetry: {}", node.problem), false, "", test.start_utc, test.end_utc};
    if (finding.gpu) return explain_gpu(finding, test, node, settings);
    return explain_host(finding, test, node, settings);
}

std::optional<std::string> gpu_telemetry_table(const std::map<std::string, SampleTable>& telemetry,
                                               const std::map<std::string, std::map<std::string, std::string>>& attributes,
                                               const std::string& uuid, std::optional<int> ordinal) {
    if (!uuid.empty()) {
        for (const auto& [device, facts] : attributes) {
            const auto found = facts.find(std::string(telemetry_columns::gpu_uuid_attribute));
            if (found != facts.end() && found->second == uuid && telemetry.count(device)) return device;
        }
        return std::nullopt;
    }
    if (!ordinal) return std::nullopt;
    const std::string device = telemetry_columns::gpu_table(static_cast<unsigned>(*ordinal));
    return telemetry.count(device) ? std::optional(device) : std::nullopt;
}

std::optional<std::string> gpu_telemetry_table(const NodeDetails& node, const std::string& uuid,
                                               std::optional<int> ordinal) {
    return gpu_telemetry_table(node.telemetry, node.telemetry_attributes, uuid, ordinal);
}

int explain_findings(std::vector<Finding>& findings, const Observations& observations, RunDetails& details,
                     const AnalysisSettings& settings, std::size_t max_nodes) {
    int explained = 0;
    std::set<std::string> nodes_read;
    for (Finding& finding : findings) {
        if (finding.level == Level::pass) continue;
        if (!nodes_read.count(finding.node) && nodes_read.size() >= max_nodes) continue;
        const TestResult* test = observations.test_of(finding.rank, finding.test);
        if (test == nullptr || test->end_utc <= test->start_utc) continue;
        nodes_read.insert(finding.node);
        WindowExplanation explanation = explain_window(finding, *test, details.node(finding.node), settings);
        if (explanation.text.empty()) continue;
        finding.explanation = std::move(explanation.text);
        finding.telemetry_coincided = explanation.coincided;
        ++explained;
    }
    return explained;
}

}  // namespace shakedown::analysis
