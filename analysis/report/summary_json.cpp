#include "analysis/report/summary_json.hpp"

#include <cmath>

namespace shakedown::analysis {
namespace {

using nlohmann::json;

json optional_number(const std::optional<double>& value) { return value ? json(*value) : json(nullptr); }

json tally_to_json(const TestTally& tally) {
    return {{"passed", tally.passed}, {"warned", tally.warned}, {"failed", tally.failed}, {"errored", tally.errored},
            {"waived", tally.waived}};
}

json node_metric_to_json(const NodeMetric& metric) {
    return {{"name", metric.name},         {"unit", metric.unit},
            {"better", to_string(metric.better)},
            {"ranks", metric.ranks},       {"median", metric.median},
            {"min", metric.min},           {"max", metric.max},
            {"sum", metric.sum},           {"nominal", optional_number(metric.nominal)},
            {"worst", metric.worst()},
            {"fraction", optional_number(metric.usable_fraction())}};
}

json devices_to_json(const std::vector<DeviceRow>& devices) {
    json list = json::array();
    for (const DeviceRow& device : devices)
        list.push_back({{"rank", device.rank},
                        {"gpu", device.gpu},
                        {"gpu_uuid", device.gpu_uuid.empty() ? json(nullptr) : json(device.gpu_uuid)},
                        {"verdict", to_string(device.verdict)},
                        {"worst", device.worst}});
    return list;
}

json node_to_json(const NodeVerdict& node, const NodeMetrics* metrics) {
    json findings = json::array();
    for (const Finding& finding : node.findings) findings.push_back(finding_to_json(finding));
    json waived = json::array();
    for (const WaivedTest& test : node.waived)
        waived.push_back({{"rank", test.rank}, {"test", test.test}, {"reason", test.reason}});
    return {{"node", node.node},           {"ranks", node.ranks},           {"verdict", to_string(node.verdict)},
            {"tests", tally_to_json(node.tests)}, {"findings", std::move(findings)}, {"waived", std::move(waived)},
            {"incomplete", node.incomplete}, {"metrics", [&] {
                json list = json::array();
                if (metrics != nullptr)
                    for (const NodeMetric& metric : metrics->metrics) list.push_back(node_metric_to_json(metric));
                return list;
            }()}};
}

json fleet_to_json(const std::vector<FleetReference>& references) {
    json list = json::array();
    for (const FleetReference& reference : references)
        list.push_back({{"metric", reference.metric},
                        {"unit", reference.unit},
                        {"better", to_string(reference.better)},
                        {"units", reference.units},
                        {"per", reference.per_gpu ? "gpu" : "node"},
                        {"median", reference.median},
                        {"mad", reference.mad},
                        {"nominal", optional_number(reference.nominal)}});
    return list;
}

json baseline_to_json(const std::optional<BaselineComparison>& baseline) {
    if (!baseline) return nullptr;
    json run_regressions = json::array();  // job-wide metrics, compared once for the run
    for (const RunRegression& regression : baseline->run_regressions)
        run_regressions.push_back({{"test", regression.test},         {"metric", regression.metric},
                                   {"unit", regression.unit},         {"value", regression.value},
                                   {"reference", regression.baseline}, {"bound", regression.bound},
                                   {"ranks", regression.ranks},       {"level", to_string(regression.level)},
                                   {"reason", regression.reason}});
    return {{"run_id", baseline->baseline_run_id}, {"run_dir", baseline->baseline_dir.string()},
            {"tolerance", baseline->tolerance},    {"compared", baseline->compared},
            {"regressions", baseline->regressions}, {"improvements", baseline->improvements},
            {"missing", baseline->missing},         {"job_wide_compared", baseline->job_wide_compared},
            {"run_regressions", std::move(run_regressions)}};
}

json price_line_to_json(const PriceLine& line) {
    return {{"quantity", line.quantity},
            {"metric", line.metric},
            {"usable", optional_number(line.usable)},
            {"nominal", optional_number(line.nominal)},
            {"per_usable_hour", optional_number(line.per_usable_hour)},
            {"per_nominal_hour", optional_number(line.per_nominal_hour)}};
}

json incomplete_to_json(const LoadedRun& run) {
    json entries = json::array();
    for (const std::string& problem : run.run_problems)
        entries.push_back({{"rank", nullptr},
                           {"node", nullptr},
                           {"problem", run.cancelled && problem == *run.cancelled ? "cancelled" : "run"},
                           {"text", problem}});
    for (const RankRecord& record : run.ranks) {
        if (record.problem == RankProblem::none) continue;
        entries.push_back({{"rank", record.rank},
                           {"node", record.node.empty() ? json(nullptr) : json(record.node)},
                           {"problem", to_string(record.problem)},
                           {"file", record.trace_path.filename().string()},
                           {"text", record.problem_text}});
    }
    return entries;
}

json counts_to_json(const Judgement& judgement) {
    json nodes = {{"total", judgement.nodes.size()}, {"pass", 0}, {"warn", 0}, {"incomplete", 0}, {"fail", 0}};
    // Only the run is ever "error"; nodes with something to fix are incomplete.
    int warn_findings = 0;
    int fail_findings = 0;
    for (const NodeVerdict& node : judgement.nodes) {
        nodes[std::string(to_string(node.verdict))] = nodes[std::string(to_string(node.verdict))].get<int>() + 1;
        for (const Finding& finding : node.findings) (finding.level == Level::fail ? fail_findings : warn_findings)++;
    }
    return {{"nodes", std::move(nodes)},
            {"ranks", {{"expected", judgement.ranks_expected},
                       {"judged", judgement.ranks_judged},
                       {"incomplete", judgement.ranks_incomplete}}},
            {"tests", tally_to_json(judgement.tests)},
            {"findings", {{"fail", fail_findings}, {"warn", warn_findings}, {"to_fix", judgement.to_fix().size()}}}};
}

}  // namespace

json finding_to_json(const Finding& finding) {
    return {{"node", finding.node},
            {"rank", finding.rank},
            {"gpu", finding.gpu ? json(*finding.gpu) : json(nullptr)},
            {"gpu_uuid", finding.gpu_uuid.empty() ? json(nullptr) : json(finding.gpu_uuid)},
            {"test", finding.test},
            {"metric", finding.metric.empty() ? json(nullptr) : json(finding.metric)},
            {"value", optional_number(finding.value)},
            {"unit", finding.unit},
            {"nominal", optional_number(finding.nominal)},
            {"fraction", optional_number(finding.usable_fraction())},
            {"reference", optional_number(finding.reference)},
            {"level", to_string(finding.level)},
            {"bound", optional_number(finding.bound)},
            {"cause", to_string(finding.cause)},
            {"source", to_string(finding.source)},
            {"code", to_string(finding.code)},
            {"evidence", to_string(finding.evidence)},
            {"confirmation", to_string(finding.confirmation)},
            {"peers", finding.peers},
            {"reason", finding.reason},
            {"explanation", finding.explanation.empty() ? json(nullptr) : json(finding.explanation)},
            {"telemetry_coincided", finding.telemetry_coincided}};
}

namespace {

json link_to_json(const NodeLink& link) {
    return {{"a", link.a},
            {"b", link.b},
            {"bandwidth_gbs", link.bandwidth_gbs},
            {"latency_us", link.latency_us},
            {"samples", link.samples},
            {"reference_gbs", link.reference_gbs},
            {"reference_links", link.reference_links},
            {"reference", link.disjoint_reference ? "links touching neither end" : "every other link"},
            {"ratio", link.ratio},
            {"sigma", link.sigma},
            {"level", to_string(link.level)}};
}

json links_to_json(const std::vector<NodeLink>& links) {
    json list = json::array();
    for (const NodeLink& link : links) list.push_back(link_to_json(link));
    return list;
}

json peer_to_json(const PeerCheck& peer) {
    return {{"node", peer.node},
            {"links", peer.links},
            {"median_gbs", std::isfinite(peer.median_gbs) ? json(peer.median_gbs) : json(nullptr)},
            {"median_ratio", peer.median_ratio},
            {"fine_elsewhere", peer.fine_elsewhere()},
            {"slow_with", peer.slow_with}};
}

}  // namespace

json localization_to_json(const LinkLocalization& links) {
    json slow_nodes = json::array();
    for (const SlowNode& node : links.slow_nodes) {
        json peers = json::array();
        for (const PeerCheck& peer : node.peers) peers.push_back(peer_to_json(peer));
        slow_nodes.push_back({{"node", node.node}, {"links", node.links}, {"median_gbs", node.median_gbs},
                              {"min_gbs", node.min_gbs}, {"max_gbs", node.max_gbs},
                              {"others_median_gbs", node.others_median_gbs}, {"level", to_string(node.level)},
                              {"ratio", node.ratio}, {"all_links", node.all_links},
                              {"common_end_of", node.evidence.size()}, {"by_statistic", node.by_statistic},
                              {"drains", node.level == Level::fail}, {"evidence", links_to_json(node.evidence)},
                              {"fine_links", links_to_json(node.fine_links)}, {"peers", std::move(peers)}});
    }
    json slow_links = json::array();
    for (const SlowLink& link : links.slow_links)
        slow_links.push_back({{"a", link.link.a}, {"b", link.link.b}, {"bandwidth_gbs", link.link.bandwidth_gbs},
                              {"latency_us", link.link.latency_us}, {"healthy_gbs", link.healthy_gbs},
                              {"a_elsewhere_gbs", std::isfinite(link.a_elsewhere_gbs) ? json(link.a_elsewhere_gbs) : json(nullptr)},
                              {"b_elsewhere_gbs", std::isfinite(link.b_elsewhere_gbs) ? json(link.b_elsewhere_gbs) : json(nullptr)},
                              {"level", to_string(link.level)}, {"ratio", link.link.ratio},
                              {"reference_gbs", link.link.reference_gbs}, {"samples", link.link.samples},
                              {"a_side", peer_to_json(link.a_side)}, {"b_side", peer_to_json(link.b_side)},
                              {"beyond", link.beyond}, {"drains", false}});
    json slow_groups = json::array();
    for (const SlowGroup& group : links.slow_groups)
        slow_groups.push_back({{"nodes", group.nodes},
                               {"switch", group.switch_name ? json(*group.switch_name) : json(nullptr)},
                               {"cross_links", group.cross_links}, {"cross_median_gbs", group.cross_median_gbs},
                               {"inside_median_gbs", group.inside_median_gbs}, {"level", to_string(group.level)},
                               {"ratio", group.ratio}, {"even_split", group.even_split},
                               {"drains", group.level == Level::fail}, {"evidence", links_to_json(group.evidence)}});
    json node_stats = json::array();
    for (const NodeStatistic& stat : links.node_stats)
        node_stats.push_back({{"node", stat.node}, {"links", stat.links}, {"value_gbs", stat.value_gbs},
                              {"reference_gbs", stat.reference_gbs}, {"reference_links", stat.reference_links},
                              {"ratio", stat.ratio}, {"sigma", stat.sigma}, {"level", to_string(stat.level)}});
    // Only the links in a band: a 512-node fabric has 130 816 links (the HTML heatmap shows them).
    json flagged = json::array();
    for (const NodeLink& link : links.links)
        if (link.level != Level::pass) flagged.push_back(link_to_json(link));
    const LinkBands& bands = links.bands;
    return {{"analyzed", links.analyzed},
            {"note", links.note},
            {"nodes", links.nodes.size()},
            {"node_links", links.links.size()},
            {"slow_fraction", links.slow_fraction},
            {"healthy_gbs", links.healthy_gbs},
            {"bands", {{"link_warn", bands.link_warn}, {"link_fail", bands.link_fail}, {"node_warn", bands.node_warn},
                       {"node_fail", bands.node_fail}, {"noise_sigmas", bands.noise_sigmas},
                       {"false_fail_rate", bands.false_fail_rate},
                       {"min_reference_links", bands.min_reference_links}}},
            {"noise", {{"measured_sigma", links.noise.measured_sigma}, {"sample_sigma", links.noise.sample_sigma},
                       {"between_sigma", links.noise.between_sigma},
                       {"degrees_of_freedom", links.noise.degrees_of_freedom},
                       {"links_with_repeats", links.noise.links_with_repeats},
                       {"typical_samples", links.noise.typical_samples}, {"link_sigmas", links.link_sigmas},
                       {"node_sigmas", links.node_sigmas}}},
            {"low_mode_links", links.low_mode_links},
            {"reference_floor_gbs", links.reference_floor_gbs},
            {"flagged_links", std::move(flagged)},
            {"node_stats", std::move(node_stats)},
            {"slow_nodes", std::move(slow_nodes)},
            {"slow_links", std::move(slow_links)},
            {"slow_groups", std::move(slow_groups)}};
}

// Every other link matrix's localization (tcp_bandwidth per interface), named.
json other_localizations_to_json(const std::vector<LinkLocalization>& localizations) {
    json all = json::array();
    for (const LinkLocalization& links : localizations) {
        json entry = localization_to_json(links);
        entry["matrix"] = links.matrix;
        entry["test"] = links.test;
        entry["network"] = links.network;
        all.push_back(std::move(entry));
    }
    return all;
}

json price_to_json(const PriceReport& price) {
    json nodes = json::array();
    for (const NodePrice& node : price.nodes) {
        json lines = json::array();
        for (const PriceLine& line : node.lines) lines.push_back(price_line_to_json(line));
        nodes.push_back({{"node", node.node}, {"lines", std::move(lines)}});
    }
    json fleet = json::array();
    for (const PriceLine& line : price.fleet) fleet.push_back(price_line_to_json(line));
    return {{"node_hour_price", price.node_hour_price}, {"node_month_price", price.node_hour_price * hours_per_month},
            {"currency", price.currency}, {"fleet", std::move(fleet)}, {"nodes", std::move(nodes)}};
}

json rate_to_json(const std::optional<Rate>& rate) {
    if (!rate) return nullptr;
    return {{"value", rate->value}, {"nominal", optional_number(rate->nominal)}, {"fraction", optional_number(rate->fraction())}};
}

json fp64_to_json(const Fp64Capability& capability) {
    json nodes = json::array();
    for (const Fp64Node& node : capability.nodes) {
        json devices = json::array();
        for (const Fp64Device& device : node.devices)
            devices.push_back({{"rank", device.rank},
                               {"device", device.gpu ? "gpu" : "host"},
                               {"gpu", device.gpu ? json(*device.gpu) : json(nullptr)},
                               {"gpu_uuid", device.gpu_uuid.empty() ? json(nullptr) : json(device.gpu_uuid)},
                               {"dgemm_tflops", rate_to_json(device.dgemm_tflops)},
                               {"lu_tflops", rate_to_json(device.lu_tflops)},
                               {"lu_scaled_residual", optional_number(device.lu_scaled_residual)},
                               {"lu_efficiency", optional_number(device.lu_efficiency)},
                               {"cg_gflops", rate_to_json(device.cg_gflops)},
                               {"cg_bound_fraction", optional_number(device.cg_bound_fraction)},
                               {"fp64_emulated_tflops", rate_to_json(device.emulated_tflops)},
                               {"fp64_emulated_error", optional_number(device.emulated_error)},
                               {"fp64_emulated_vs_native", optional_number(device.emulated_vs_native)}});
        nodes.push_back({{"node", node.node},
                         {"devices", std::move(devices)},
                         {"gpu_dgemm_tflops", rate_to_json(node.gpu_dgemm_tflops)},
                         {"gpu_lu_tflops", rate_to_json(node.gpu_lu_tflops)},
                         {"price_per_dgemm_tflops_hour", optional_number(node.price_per_dgemm_tflops_hour)},
                         {"price_per_lu_tflops_hour", optional_number(node.price_per_lu_tflops_hour)}});
    }
    json host_lu = nullptr;
    if (capability.host_lu)
        host_lu = {{"ranks", capability.host_lu->ranks},
                   {"grid", capability.host_lu->grid},
                   {"tflops", rate_to_json(capability.host_lu->tflops)},
                   {"scaled_residual", capability.host_lu->scaled_residual},
                   {"efficiency", optional_number(capability.host_lu->efficiency)}};
    json task = nullptr;
    if (const auto& standard = capability.task)
        task = {{"flop", standard->flop},
                {"gpus", standard->gpus},
                {"nodes", standard->nodes},
                {"tflops", standard->tflops},
                {"hours", standard->hours},
                {"price", optional_number(standard->price)},
                {"energy_kwh", optional_number(standard->kwh)},
                {"energy_per_kwh", optional_number(standard->energy_per_kwh)},
                {"energy_price", optional_number(standard->energy_price)}};
    return {{"nodes", std::move(nodes)}, {"host_lu", std::move(host_lu)}, {"task", std::move(task)}, {"currency", capability.currency}};
}

json rent_or_buy_to_json(const std::optional<RentOrBuy>& comparison) {
    if (!comparison) return nullptr;
    const OwnershipInputs& in = comparison->inputs;
    json units = json::array();
    for (const OwnedUnit& unit : comparison->units)
        units.push_back({{"quantity", unit.quantity},
                         {"usable", unit.usable},
                         {"rent_per_usable_hour", unit.rent_per_usable_hour},
                         {"own_per_usable_hour", unit.own_per_usable_hour}});
    const bool computed = comparison->not_computed.empty();
    return {{"inputs",
             {{"source", in.source},
              {"purchase_per_node", in.purchase_per_node},
              {"depreciation_months", in.depreciation_months},
              {"hosting_per_node_month", in.hosting_per_node_month},
              {"pue", in.pue},
              {"energy_per_kwh", computed ? json(comparison->energy_per_kwh) : json(nullptr)},
              {"node_power_w", computed ? json(comparison->node_power_w) : json(nullptr)},
              {"node_power_from", comparison->node_power_from},
              {"rent_per_node_hour", comparison->rent_per_node_hour},
              {"currency", comparison->currency}}},
            {"own_fixed_per_node_hour", computed ? json(comparison->own_fixed_per_node_hour) : json(nullptr)},
            {"own_energy_per_node_hour", computed ? json(comparison->own_energy_per_node_hour) : json(nullptr)},
            {"units", std::move(units)},
            {"break_even_utilization", optional_number(comparison->break_even_utilization)},
            {"break_even_month", optional_number(comparison->break_even_month)},
            {"not_computed", comparison->not_computed}};
}

json energy_to_json(const std::vector<EnergyRow>& rows) {
    json entries = json::array();
    for (const EnergyRow& row : rows) {
        json per_unit = json::object();
        for (const EnergyPerUnit& unit : row.per_unit) per_unit[unit.unit] = unit.joules;
        const bool timed = row.window.seconds() > 0.0;
        entries.push_back({{"node", row.node},
                           {"rank", row.rank},
                           {"gpu", row.gpu ? json(*row.gpu) : json(nullptr)},
                           {"test", row.test},
                           {"phase_start_utc", timed ? json(row.window.start_utc) : json(nullptr)},
                           {"phase_end_utc", timed ? json(row.window.end_utc) : json(nullptr)},
                           {"readings", row.readings},
                           {"power_w", optional_number(row.power_w)},
                           {"power_source", row.source},
                           {"power_readings_w", optional_number(row.power_readings_w)},
                           {"joules_per_unit", std::move(per_unit)},
                           {"per_watt", optional_number(row.per_watt)},
                           {"per_watt_unit", row.per_watt_unit},
                           {"nominal_per_watt", optional_number(row.nominal_per_watt)},
                           {"power_limit_w", optional_number(row.power_limit_w)},
                           {"not_measured", row.not_measured}});
    }
    return entries;
}

json workload_to_json(const Workload& workload) {
    if (workload.empty()) return nullptr;
    json devices = json::array();
    for (const WorkloadDevice& device : workload.devices)
        devices.push_back({{"node", device.node},
                           {"rank", device.rank},
                           {"gpu", device.gpu ? json(*device.gpu) : json(nullptr)},
                           {"step_s", device.step_s},
                           {"tokens_per_s", device.tokens_per_s},
                           {"mfu", optional_number(device.mfu)},
                           {"mfu_of_measured_peak", optional_number(device.mfu_measured)},
                           {"alone_step_s", optional_number(device.alone_s)}});
    json scaling = json::array();
    for (const ScalingRow& row : workload.scaling)
        scaling.push_back({{"scope", row.scope},
                           {"gpus", row.gpus},
                           {"efficiency", row.measured},
                           {"predicted", row.predicted},
                           {"bus_gbs", optional_number(row.bus_gbs)}});
    json science = json::array();
    for (const ScienceScalingRow& row : workload.science)
        science.push_back({{"test", row.test},
                           {"ranks", row.ranks},
                           {"nodes", row.nodes},
                           {"efficiency", row.measured},
                           {"predicted", row.predicted},
                           {"comm_gbs", optional_number(row.comm_gbs)},
                           {"comm_figure", row.comm_figure}});
    return {{"model", workload.model},
            {"engine", workload.engine},
            {"science", std::move(science)},
            {"devices", std::move(devices)},
            {"scaling", std::move(scaling)},
            {"job_tokens_per_s", workload.job_tokens_per_s},
            {"nodes", workload.nodes},
            {"price_per_million_tokens", optional_number(workload.price_per_million_tokens)},
            {"task_tokens", workload.task_tokens},
            {"task_hours", optional_number(workload.task_hours)},
            {"task_price", optional_number(workload.task_price)},
            {"task_energy_kwh", optional_number(workload.task_kwh)},
            {"energy_per_kwh", optional_number(workload.energy_per_kwh)},
            {"task_energy_price", optional_number(workload.task_energy_price)},
            {"currency", workload.currency}};
}

json link_verdicts_to_json(const std::vector<LinkRow>& links) {
    json list = json::array();
    for (const LinkRow& link : links)
        list.push_back({{"matrix", link.matrix},
                        {"link", link.link},
                        {"verdict", to_string(link.verdict)},
                        {"gbs", link.gbs},
                        {"ratio", link.ratio},
                        {"confirmation", to_string(link.confirmation)},
                        {"reason", link.reason}});
    return list;
}

json summary_to_json(const ReportModel& model, const SummaryContext& context) {
    const LoadedRun& run = *model.run;
    const AnalysisResult& result = *model.result;
    const Judgement& judgement = result.judgement;
    std::map<std::string, const NodeMetrics*> metrics_of;
    for (const NodeMetrics& metrics : model.node_metrics) metrics_of.emplace(metrics.node, &metrics);
    json nodes = json::array();
    for (const NodeReport& report : model.nodes) {
        const NodeVerdict& node = *report.verdict;
        auto found = metrics_of.find(node.node);
        json entry = node_to_json(node, found == metrics_of.end() ? nullptr : found->second);
        entry["devices"] = devices_to_json(report.devices);
        nodes.push_back(std::move(entry));
    }
    return {{"schema_version", summary_schema_version},
            {"shakedown_version", SHAKEDOWN_VERSION},
            {"run_id", run.manifest.run_id},
            {"run_dir", run.dir.string()},
            {"run_status", run.manifest.status},
            {"suite", run.manifest.suite},
            {"analyzed_utc", context.analyzed_utc},
            {"started_utc", run.manifest.start_utc > 0.0 ? json(run.manifest.start_utc) : json(nullptr)},
            {"ended_utc", optional_number(run.manifest.end_utc)},
            {"thresholds", context.thresholds_source},
            {"verdict", to_string(judgement.overall)},
            {"exit_code", judgement.exit_code()},
            {"counts", counts_to_json(judgement)},
            {"nodes", std::move(nodes)},
            {"link_verdicts", link_verdicts_to_json(model.links)},
            {"incomplete", incomplete_to_json(run)},
            {"fleet", fleet_to_json(result.fleet)},
            {"baseline", baseline_to_json(result.baseline)},
            {"localization", result.links ? localization_to_json(*result.links) : json(nullptr)},
            {"other_localizations", other_localizations_to_json(result.other_links)},
            {"price", model.price ? price_to_json(*model.price) : json(nullptr)},
            {"fp64_capability", fp64_to_json(model.fp64)},
            {"workload", workload_to_json(model.workload)},
            {"energy", energy_to_json(model.energy)},
            {"rent_or_buy", rent_or_buy_to_json(model.rent_or_buy)},
            {"explained_findings", result.explained},
            {"outputs", context.outputs}};
}

}  // namespace shakedown::analysis
