#include "analysis/report/fp64_capability.hpp"

#include "analysis/report/price_report.hpp"
#include "analysis/rules/model/finding.hpp"
#include "placement/placement_names.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace shakedown::analysis {
namespace {

Rate rate_of(const Metric& metric) {
    Rate rate{metric.value, std::nullopt};
    if (metric.nominal && std::isfinite(*metric.nominal) && *metric.nominal > 0.0) rate.nominal = metric.nominal;
    return rate;
}

std::optional<double> ratio(const std::optional<Rate>& part, const std::optional<Rate>& whole) {
    if (!part || !whole || whole->value <= 0.0) return std::nullopt;
    return part->value / whole->value;
}

// The sum of the devices' rates; its nominal only when every device has one.
std::optional<Rate> sum_of(const std::vector<Fp64Device>& devices, std::optional<Rate> Fp64Device::*field) {
    std::optional<Rate> total;
    bool every_nominal = true;
    double nominal = 0.0;
    for (const Fp64Device& device : devices) {
        if (!device.gpu || !(device.*field)) continue;
        if (!total) total = Rate{};
        total->value += (device.*field)->value;
        if ((device.*field)->nominal) nominal += *(device.*field)->nominal;
        else every_nominal = false;
    }
    if (total && every_nominal) total->nominal = nominal;
    return total;
}

std::optional<double> price_per(const std::optional<double>& hour_price, const std::optional<Rate>& rate) {
    if (!hour_price || !rate || rate->value <= 0.0) return std::nullopt;
    return *hour_price / rate->value;
}

}  // namespace

std::optional<double> Rate::fraction() const {
    if (!nominal || *nominal <= 0.0) return std::nullopt;
    return value / *nominal;
}

std::string Fp64Device::label() const { return gpu ? fmt::format("GPU {}", *gpu) : fmt::format("host (rank {})", rank); }

Fp64Capability make_fp64_capability(const Observations& observations, const AnalysisSettings& settings) {
    Fp64Capability capability;
    capability.node_hour_price = settings.node_hour_price();
    capability.currency = settings.currency_text();

    std::map<std::pair<int, bool>, Fp64Device> devices;  // (rank, on the host) -> device
    std::vector<double> host_lu_rates, host_lu_nominals;
    std::set<int> host_lu_ranks;
    double host_lu_residual = 0.0;
    std::string host_lu_grid;
    for (const MetricRow& row : observations.metrics()) {
        const Metric& metric = *row.metric;
        if (!std::isfinite(metric.value)) continue;
        const std::string& name = metric.name;
        // A result that records no device (the ladder runs on GPUs only) is its rank's GPU's.
        const std::string_view recorded = ran_on(*row.test);
        const bool on_host = recorded == placement::names::ran_on_host || (recorded.empty() && !row.who->gpu);
        if (name == fp64_metrics::lu && on_host) {
            host_lu_rates.push_back(metric.value);
            if (metric.nominal) host_lu_nominals.push_back(*metric.nominal);
            host_lu_ranks.insert(row.who->rank);
            if (const auto grid = row.test->parameters.find(std::string(kernels::lu_names::grid_used));
                grid != row.test->parameters.end())
                host_lu_grid = grid->second;
            continue;
        }
        if (name == fp64_metrics::lu_residual && on_host) {
            host_lu_residual = std::max(host_lu_residual, metric.value);
            continue;
        }
        const bool wanted = name == fp64_metrics::dgemm || name == fp64_metrics::lu || name == fp64_metrics::lu_residual ||
                            name == fp64_metrics::cg || name == fp64_metrics::cg_bound_fraction ||
                            name == fp64_metrics::emulated || name == fp64_metrics::emulated_error;
        if (!wanted) continue;
        Fp64Device& device = devices[{row.who->rank, on_host}];
        device.rank = row.who->rank;
        if (!on_host) {
            device.gpu = row.who->gpu.value_or(0);
            device.gpu_uuid = row.who->gpu_uuid;
        }
        if (name == fp64_metrics::dgemm) device.dgemm_tflops = rate_of(metric);
        else if (name == fp64_metrics::lu) device.lu_tflops = rate_of(metric);
        else if (name == fp64_metrics::lu_residual) device.lu_scaled_residual = metric.value;
        else if (name == fp64_metrics::cg) device.cg_gflops = rate_of(metric);
        else if (name == fp64_metrics::cg_bound_fraction) device.cg_bound_fraction = metric.value;
        else if (name == fp64_metrics::emulated) device.emulated_tflops = rate_of(metric);
        else device.emulated_error = metric.value;
    }

    std::map<std::string, std::vector<Fp64Device>> by_node;
    double host_dgemm_of_lu_ranks = 0.0;
    int host_dgemm_ranks = 0;
    for (auto& [key, device] : devices) {
        device.lu_efficiency = ratio(device.lu_tflops, device.dgemm_tflops);
        device.emulated_vs_native = ratio(device.emulated_tflops, device.dgemm_tflops);
        if (!device.gpu && host_lu_ranks.count(device.rank) != 0 && device.dgemm_tflops) {
            host_dgemm_of_lu_ranks += device.dgemm_tflops->value;
            ++host_dgemm_ranks;
        }
        const RankIdentity* who = observations.rank(device.rank);
        by_node[who != nullptr ? who->node : std::string(unknown_node)].push_back(device);
    }
    for (const NodeRow& node : observations.nodes()) {
        auto found = by_node.find(node.name);
        if (found == by_node.end()) continue;
        Fp64Node row{node.name, std::move(found->second), std::nullopt, std::nullopt, std::nullopt, std::nullopt};
        row.gpu_dgemm_tflops = sum_of(row.devices, &Fp64Device::dgemm_tflops);
        row.gpu_lu_tflops = sum_of(row.devices, &Fp64Device::lu_tflops);
        row.price_per_dgemm_tflops_hour = price_per(capability.node_hour_price, row.gpu_dgemm_tflops);
        row.price_per_lu_tflops_hour = price_per(capability.node_hour_price, row.gpu_lu_tflops);
        capability.nodes.push_back(std::move(row));
        by_node.erase(found);
    }

    if (!host_lu_rates.empty()) {
        HostLu lu;
        lu.ranks = static_cast<int>(host_lu_ranks.size());
        lu.grid = host_lu_grid;
        lu.tflops.value = stats::median(host_lu_rates);  // every rank records the job's figure
        if (host_lu_nominals.size() == host_lu_rates.size()) lu.tflops.nominal = stats::median(host_lu_nominals);
        lu.scaled_residual = host_lu_residual;
        // Only against the DGEMM of the very ranks that factored together.
        if (host_dgemm_ranks == lu.ranks && host_dgemm_of_lu_ranks > 0.0)
            lu.efficiency = lu.tflops.value / host_dgemm_of_lu_ranks;
        capability.host_lu = lu;
    }
    return capability;
}

void add_fp64_task(Fp64Capability& capability, const std::vector<EnergyRow>& energy, const AnalysisSettings& settings) {
    Fp64Task task;
    task.flop = settings.task_fp64_flop_count();
    double watts = 0.0;
    double measured_tflops = 0.0;  // of the GPUs with an energy figure
    int missing = 0;
    for (const Fp64Node& node : capability.nodes) {
        bool counted = false;
        for (const Fp64Device& device : node.devices) {
            if (!device.gpu || !device.dgemm_tflops || !(device.dgemm_tflops->value > 0.0)) continue;
            ++task.gpus;
            counted = true;
            task.tflops += device.dgemm_tflops->value;
            const auto row = std::find_if(energy.begin(), energy.end(), [&](const EnergyRow& candidate) {
                return candidate.test == kernels::dgemm_names::key && candidate.rank == device.rank;
            });
            if (row == energy.end() || !row->power_w) {
                ++missing;
                continue;
            }
            watts += *row->power_w;
            measured_tflops += device.dgemm_tflops->value;
        }
        if (counted) ++task.nodes;
    }
    if (task.gpus == 0) return;
    task.hours = task.flop / (task.tflops * 1e12) / 3600.0;
    if (capability.node_hour_price) task.price = task.hours * *capability.node_hour_price * task.nodes;
    if (missing == 0 && measured_tflops > 0.0) {
        task.kwh = task.flop / 1e12 * (watts / measured_tflops) / 3.6e6;  // TFLOP x J per TFLOP
        task.energy_per_kwh = settings.energy_per_kwh;
        if (settings.energy_per_kwh) task.energy_price = *task.kwh * *settings.energy_per_kwh;
    } else {
        task.energy_note = fmt::format("its energy: not measured on {} of the {} GPU(s) (Energy)", missing, task.gpus);
    }
    capability.task = task;
}

namespace {

std::string dash_or(const std::optional<double>& value, const char* format) {
    return value ? fmt::format(fmt::runtime(format), *value) : std::string("-");
}

// "57.9 (0.86 of 67)": the usable figure beside its nominal.
std::string rate_text(const std::optional<Rate>& rate) {
    if (!rate) return "-";
    std::string text = format_number(rate->value);
    if (const auto fraction = rate->fraction())
        text += fmt::format(" ({:.2f} of {})", *fraction, format_number(*rate->nominal));
    return text;
}

}  // namespace

Fp64Table fp64_table(const Fp64Capability& capability) {
    Fp64Table table;
    table.header = {"node",           "device",   "DGEMM TFLOP/s", "LU TFLOP/s", "LU residual", "LU / DGEMM",
                    "CG GFLOP/s",     "CG / bound", "emulated FP64 TFLOP/s", "emulated error", "emulated / native"};
    for (const Fp64Node& node : capability.nodes)
        for (const Fp64Device& device : node.devices)
            table.rows.push_back({node.node, device.label(), rate_text(device.dgemm_tflops), rate_text(device.lu_tflops),
                                  dash_or(device.lu_scaled_residual, "{:.3g}"), dash_or(device.lu_efficiency, "{:.2f}"),
                                  rate_text(device.cg_gflops), dash_or(device.cg_bound_fraction, "{:.2f}"),
                                  rate_text(device.emulated_tflops), dash_or(device.emulated_error, "{:.2g}"),
                                  dash_or(device.emulated_vs_native, "{:.2f}")});
    return table;
}

std::vector<std::string> fp64_lines(const Fp64Capability& capability) {
    std::vector<std::string> lines;
    for (const Fp64Node& node : capability.nodes) {
        if (!node.gpu_dgemm_tflops && !node.gpu_lu_tflops) continue;
        const auto gpus = std::count_if(node.devices.begin(), node.devices.end(), [](const Fp64Device& d) { return d.gpu; });
        std::string line = fmt::format("{}: {} GPU(s): DGEMM {} TFLOP/s", node.node, gpus, rate_text(node.gpu_dgemm_tflops));
        if (node.gpu_lu_tflops) line += fmt::format(", LU {} TFLOP/s", rate_text(node.gpu_lu_tflops));
        if (node.price_per_dgemm_tflops_hour)
            line += fmt::format("; {} per usable DGEMM TFLOP/s per hour", money(*node.price_per_dgemm_tflops_hour, capability.currency));
        if (node.price_per_lu_tflops_hour)
            line += fmt::format(", {} per usable LU TFLOP/s per hour", money(*node.price_per_lu_tflops_hour, capability.currency));
        lines.push_back(line);
    }
    if (capability.host_lu) {
        const HostLu& lu = *capability.host_lu;
        std::string line = fmt::format("host LU (ScaLAPACK over {} rank(s){}): {} TFLOP/s, scaled residual {:.3g}", lu.ranks,
                                       lu.grid.empty() ? "" : ", grid " + lu.grid, rate_text(lu.tflops), lu.scaled_residual);
        if (lu.efficiency) line += fmt::format(", {:.2f} of the same ranks' summed DGEMM", *lu.efficiency);
        lines.push_back(line);
    }
    if (const auto& task = capability.task) {
        std::string line = fmt::format("an FP64 task of {} FLOP of DGEMM on these {} GPU(s) ({} node(s), {} usable TFLOP/s): {} h",
                                       format_number(task->flop), task->gpus, task->nodes, format_number(task->tflops),
                                       format_number(task->hours));
        if (task->price) line += ", " + money(*task->price, capability.currency);
        if (task->kwh) {
            line += fmt::format("; its GPU energy {} kWh", format_number(*task->kwh));
            if (task->energy_price)
                line += fmt::format(", {} at {} per kWh", money(*task->energy_price, capability.currency),
                                    money(*task->energy_per_kwh, capability.currency));
            line += " (the GPUs' own draw: hosts, network and cooling not measured)";
        } else {
            line += "; " + task->energy_note;
        }
        lines.push_back(line);
    }
    return lines;
}

}  // namespace shakedown::analysis
