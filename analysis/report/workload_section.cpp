#include "analysis/report/workload_section.hpp"

#include "analysis/rules/figures/scaling_declarations.hpp"
#include "analysis/rules/model/finding.hpp"
#include "kernels/train/train_step_names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace shakedown::analysis {
namespace {

namespace names = kernels::train_names;

std::string text_or_dash(const std::optional<double>& value, int digits = 3) {
    return value ? fmt::format("{:.{}g}", *value, digits) : "-";
}

std::string parameter(const TestResult& test, std::string_view name) {
    const auto found = test.parameters.find(std::string(name));
    return found == test.parameters.end() ? "" : found->second;
}

// Each science kernel's job row, from its first rank (the job's figures are the same on every
// rank); none where fewer than two ranks measured it.
std::vector<ScienceScalingRow> science_rows(const Observations& observations) {
    std::vector<ScienceScalingRow> rows;
    for (const ScalingDeclaration* declaration : scaling_declarations) {
        if (declaration->test == names::key) continue;  // the training step has its own tables
        const TestResult* first = nullptr;
        int ranks = 0;
        std::set<std::string> nodes;
        for (const TestRow& row : observations.tests()) {
            const TestResult& test = *row.test;
            if (test.key != declaration->test || test.status == Status::waived || test.status == Status::error) continue;
            if (!finite_metric(test, declaration->job_efficiency) || !finite_metric(test, declaration->predicted_job_efficiency))
                continue;
            if (!first) first = &test;
            ++ranks;
            nodes.insert(row.who->node);
        }
        if (!first || ranks < 2) continue;
        const Metric* comm = finite_metric(*first, declaration->job_comm_gbs);
        rows.push_back({std::string(declaration->test), std::string(declaration->work), ranks, static_cast<int>(nodes.size()),
                        finite_metric(*first, declaration->job_efficiency)->value,
                        finite_metric(*first, declaration->predicted_job_efficiency)->value,
                        comm ? std::optional<double>(comm->value) : std::nullopt, std::string(declaration->comm_figure)});
    }
    return rows;
}

}  // namespace

Workload make_workload(const Observations& observations, const AnalysisSettings& settings) {
    Workload workload;
    workload.science = science_rows(observations);
    std::map<std::string, const TestResult*> first_of_node;
    const TestResult* first = nullptr;
    for (const TestRow& row : observations.tests()) {
        const TestResult& test = *row.test;
        if (test.key != names::key || test.status == Status::waived || test.status == Status::error) continue;
        const Metric* step = finite_metric(test, names::step_time_s);
        const Metric* tokens = finite_metric(test, names::tokens_per_s);
        if (!step || !tokens) continue;
        if (!first) first = &test;
        first_of_node.emplace(row.who->node, &test);
        WorkloadDevice device{row.who->node, row.who->rank, row.who->gpu, step->value, tokens->value};
        if (const Metric* rate = finite_metric(test, names::model_tflops)) device.mfu = rate->usable_fraction();
        if (const Metric* measured = finite_metric(test, names::mfu_of_measured_peak)) device.mfu_measured = measured->value;
        if (const Metric* alone = finite_metric(test, names::alone_step_s)) device.alone_s = alone->value;
        workload.job_tokens_per_s += tokens->value;
        workload.devices.push_back(device);
    }
    if (!first) return workload;
    workload.model = parameter(*first, names::recorded_model);
    workload.engine = parameter(*first, names::recorded_engine);
    workload.nodes = static_cast<int>(first_of_node.size());

    const bool on_gpus = std::any_of(workload.devices.begin(), workload.devices.end(),
                                     [](const WorkloadDevice& device) { return device.gpu.has_value(); });
    workload.scaling.push_back({on_gpus ? "one GPU alone (T1)" : "one rank alone (T1)", 1, 1.0, 1.0, std::nullopt});
    for (const auto& [node, test] : first_of_node) {
        const NodeRow* row = observations.node(node);
        const int ranks = row ? static_cast<int>(row->ranks.size()) : 1;
        const Metric* efficiency = finite_metric(*test, names::node_efficiency);
        const Metric* predicted = finite_metric(*test, names::predicted_node_efficiency);
        if (ranks < 2 || !efficiency || !predicted) continue;
        const Metric* bus = finite_metric(*test, names::node_busbw_gbs);
        const std::string topology = parameter(*test, names::recorded_topology);
        workload.scaling.push_back({topology.empty() ? node : fmt::format("{} ({})", node, topology), ranks, efficiency->value,
                                    predicted->value, bus ? std::optional<double>(bus->value) : std::nullopt});
    }
    const Metric* job = finite_metric(*first, names::job_efficiency);
    const Metric* job_predicted = finite_metric(*first, names::predicted_job_efficiency);
    const Metric* gpus = finite_metric(*first, names::job_gpus);
    if (job && job_predicted && gpus && gpus->value >= 2) {
        const Metric* bus = finite_metric(*first, names::job_busbw_gbs);
        workload.scaling.push_back({fmt::format("job ({} node(s))", workload.nodes), static_cast<int>(gpus->value), job->value,
                                    job_predicted->value, bus ? std::optional<double>(bus->value) : std::nullopt});
    }

    workload.task_tokens = settings.task_token_count();
    workload.currency = settings.currency_text();
    if (const auto price = settings.node_hour_price(); price && workload.job_tokens_per_s > 0.0) {
        const double fleet_per_hour = *price * workload.nodes;
        workload.price_per_million_tokens = fleet_per_hour / (workload.job_tokens_per_s * 3600.0) * 1e6;
        workload.task_hours = workload.task_tokens / workload.job_tokens_per_s / 3600.0;
        workload.task_price = *workload.task_hours * fleet_per_hour;
    } else if (workload.job_tokens_per_s > 0.0) {
        workload.task_hours = workload.task_tokens / workload.job_tokens_per_s / 3600.0;
    }
    return workload;
}

void add_task_energy(Workload& workload, const std::vector<EnergyRow>& energy, const AnalysisSettings& settings) {
    double watts = 0.0;
    double tokens_per_s = 0.0;
    int gpus = 0;
    int missing = 0;
    for (const WorkloadDevice& device : workload.devices) {
        if (!device.gpu) continue;
        ++gpus;
        const auto row = std::find_if(energy.begin(), energy.end(), [&](const EnergyRow& candidate) {
            return candidate.test == names::key && candidate.rank == device.rank;
        });
        if (row == energy.end() || !row->power_w) {
            ++missing;
            continue;
        }
        watts += *row->power_w;
        tokens_per_s += device.tokens_per_s;
    }
    if (gpus == 0) return;
    if (missing > 0 || !(tokens_per_s > 0.0)) {
        workload.task_energy_note = fmt::format("the task's energy: not measured on {} of the step's {} GPU(s) (Energy)",
                                                missing, gpus);
        return;
    }
    workload.task_kwh = workload.task_tokens * watts / tokens_per_s / 3.6e6;
    workload.energy_per_kwh = settings.energy_per_kwh;
    if (settings.energy_per_kwh) workload.task_energy_price = *workload.task_kwh * *settings.energy_per_kwh;
}

WorkloadTable workload_device_table(const Workload& workload) {
    WorkloadTable table;
    table.header = {"node", "device", "step (s)", "tokens/s", "MFU", "MFU of measured GEMM", "alone (s)"};
    for (const WorkloadDevice& device : workload.devices)
        table.rows.push_back({device.node,
                              device.gpu ? fmt::format("GPU {} (rank {})", *device.gpu, device.rank)
                                         : fmt::format("host (rank {})", device.rank),
                              fmt::format("{:.4g}", device.step_s), fmt::format("{:.4g}", device.tokens_per_s),
                              text_or_dash(device.mfu), text_or_dash(device.mfu_measured), text_or_dash(device.alone_s, 4)});
    return table;
}

WorkloadTable workload_scaling_table(const Workload& workload) {
    WorkloadTable table;
    table.header = {"scope", "GPUs (ranks)", "efficiency", "predicted", "measured / predicted", "all-reduce bus bandwidth"};
    for (const ScalingRow& row : workload.scaling)
        table.rows.push_back({row.scope, std::to_string(row.gpus), fmt::format("{:.3g}", row.measured),
                              fmt::format("{:.3g}", row.predicted),
                              row.predicted > 0.0 ? fmt::format("{:.3g}", row.measured / row.predicted) : "-",
                              row.bus_gbs ? with_unit(*row.bus_gbs, "GB/s") : "-"});
    return table;
}

WorkloadTable workload_science_table(const Workload& workload) {
    WorkloadTable table;
    table.header = {"science kernel", "ranks (nodes)", "weak-scaling efficiency", "predicted", "measured / predicted",
                    "communication figure"};
    for (const ScienceScalingRow& row : workload.science)
        table.rows.push_back({fmt::format("{} ({})", row.test, row.work), fmt::format("{} ({})", row.ranks, row.nodes),
                              fmt::format("{:.3g}", row.measured), fmt::format("{:.3g}", row.predicted),
                              row.predicted > 0.0 ? fmt::format("{:.3g}", row.measured / row.predicted) : "-",
                              row.comm_gbs ? fmt::format("{} {}", row.comm_figure, with_unit(*row.comm_gbs, "GB/s")) : "-"});
    return table;
}

std::vector<std::string> workload_lines(const Workload& workload) {
    std::vector<std::string> lines;
    if (!workload.science.empty())
        lines.push_back("science kernels: weak-scaling efficiency is the median rank's work alone (T1, every rank at once) "
                        "over the job's slowest step with its communication; predicted from the same run's T1 and its "
                        "communication measured alone (the scaling rule judges the difference)");
    for (const ScienceScalingRow& row : workload.science)
        lines.push_back(fmt::format("{} on {} rank(s), {} node(s): weak-scaling efficiency {}, predicted {}{}", row.test, row.ranks,
                                    row.nodes, format_number(row.measured), format_number(row.predicted),
                                    row.comm_gbs ? fmt::format(" from its {} ({})", row.comm_figure, with_unit(*row.comm_gbs, "GB/s"))
                                                 : std::string()));
    if (workload.devices.empty()) return lines;
    lines.push_back(fmt::format("step: {}; {}", workload.model, workload.engine));
    lines.push_back(fmt::format("{} token/s over {} rank(s) on {} node(s); efficiency is the median rank's step alone (T1) over "
                                "its data-parallel step; predicted from the same run's T1 schedule and all-reduce bus bandwidth",
                                format_number(workload.job_tokens_per_s), workload.devices.size(), workload.nodes));
    for (const ScalingRow& row : workload.scaling)
        if (row.gpus > 1 && row.predicted > 0.0 && row.measured < 0.9 && row.measured / row.predicted >= 0.85)
            lines.push_back(fmt::format("{}: as built: efficiency {} of T1, predicted {} from its own all-reduce bus bandwidth{}: "
                                        "the links, not a fault, set it",
                                        row.scope, format_number(row.measured), format_number(row.predicted),
                                        row.bus_gbs ? " (" + with_unit(*row.bus_gbs, "GB/s") + ")" : std::string()));
    if (workload.price_per_million_tokens)
        lines.push_back(fmt::format("price per million tokens of this step: {} {}", format_number(*workload.price_per_million_tokens),
                                    workload.currency));
    if (workload.task_hours)
        lines.push_back(fmt::format("a task of {} tokens on this fleet: {} h{}", format_number(workload.task_tokens),
                                    format_number(*workload.task_hours),
                                    workload.task_price ? fmt::format(", {} {}", format_number(*workload.task_price), workload.currency)
                                                        : std::string()));
    if (workload.task_kwh)
        lines.push_back(fmt::format("the same task's GPU energy: {} kWh{} (the GPUs' own draw: hosts, network and cooling "
                                    "not measured)",
                                    format_number(*workload.task_kwh),
                                    workload.task_energy_price
                                        ? fmt::format(", {} {} at {} {} per kWh", format_number(*workload.task_energy_price),
                                                      workload.currency, format_number(*workload.energy_per_kwh), workload.currency)
                                        : std::string()));
    else if (!workload.task_energy_note.empty())
        lines.push_back(workload.task_energy_note);
    return lines;
}

}  // namespace shakedown::analysis
