#include "analysis/report/html_report.hpp"

#include "telemetry/telemetry_columns.hpp"

#include "analysis/report/headline_figures.hpp"
#include "analysis/report/markup.hpp"
#include "analysis/report/report_figures.hpp"
#include "analysis/report/report_templates.hpp"
#include "analysis/report/svg_plots.hpp"
#include "analysis/rules/health/telemetry_explanation.hpp"
#include "core/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

namespace shakedown::analysis {
namespace {

using json = nlohmann::json;

// Per node at most `per_node` findings (the model holds them most telling first), FAILs first.
std::vector<const Finding*> top_findings(const ReportModel& model, std::size_t per_node, std::size_t& total) {
    std::vector<const Finding*> findings;
    total = 0;
    for (const NodeReport& node : model.nodes) {
        total += node.findings.size();
        for (std::size_t i = 0; i < node.findings.size() && i < per_node; ++i) findings.push_back(node.findings[i]);
    }
    std::stable_sort(findings.begin(), findings.end(),
                     [](const Finding* a, const Finding* b) { return a->level > b->level; });
    return findings;
}

json findings_view(const std::vector<const Finding*>& findings, std::size_t total, std::size_t max_findings,
                   std::size_t per_node) {
    json rows = json::array();
    for (std::size_t i = 0; i < findings.size() && i < max_findings; ++i) {
        const Finding& finding = *findings[i];
        const std::string level(to_string(finding.level));
        rows.push_back({{"level", level},
                        {"verdict", upper(level)},
                        {"node", finding.node},
                        {"rank", std::to_string(finding.rank)},
                        {"gpu", finding.gpu ? std::to_string(*finding.gpu) : "-"},
                        {"test", finding.test},
                        {"rule", to_string(finding.source)},
                        {"value", finding.value ? format_number(*finding.value) + " " + finding.unit : "-"},
                        {"nominal", finding.nominal ? format_number(*finding.nominal) : "-"},
                        {"ratio", finding.usable_fraction() ? fmt::format("{:.2f}", *finding.usable_fraction()) : "-"},
                        {"reason", finding.reason},
                        {"telemetry", finding.telemetry_coincided ? json(finding.explanation) : json(false)}});
    }
    json note = false;
    if (total > std::min(findings.size(), max_findings))
        note = fmt::format("At most {} per node and {} in all shown; all {} findings, each with what the telemetry "
                           "showed, are in summary.json.", per_node, max_findings, total);
    const bool any = !rows.empty();
    return {{"shown", std::to_string(std::min(findings.size(), max_findings))}, {"total", std::to_string(total)},
            {"rows", std::move(rows)}, {"any", any}, {"note", std::move(note)}};
}

json heatmap_view(const ReportModel& model) {
    const std::optional<LinkLocalization>& links = model.result->links;
    if (!links) return false;
    return {{"svg", links->analyzed && !links->links.empty() ? json(svg_link_heatmap(*links)) : json(false)}};
}

// One heatmap per other link matrix (tcp_bandwidth per interface), titled with its name; false
// when none was analyzed with links.
json other_heatmaps_view(const ReportModel& model) {
    json list = json::array();
    for (const LinkLocalization& links : model.result->other_links)
        if (links.analyzed && !links.links.empty())
            list.push_back({{"title", links.matrix}, {"svg", svg_link_heatmap(links)}});
    return list.empty() ? json(false) : json{{"list", std::move(list)}};
}

// The WARN and FAIL lines of a metric's bars: against the calibrated healthy figure where the
// fleet's part has one (the judging does the same), else the generic band of nominal.
BarBand band_for(const std::string& metric, const ReportModel& model, const Thresholds& thresholds) {
    const MetricRule* rule = thresholds.rule_for(metric);
    if (rule == nullptr || (!rule->fraction_of_nominal && !rule->calibrated)) return {};
    const Observations& observations = *model.observations;
    const std::string key = metric.substr(0, metric.find('.'));
    for (const RankIdentity& who : observations.ranks()) {
        if (who.gpu_name.empty()) continue;
        const TestResult* test = observations.test_of(who.rank, key);
        if (test == nullptr) continue;
        const auto* calibrated = thresholds.calibration().find(metric, who.gpu_name, test->parameters,
                                                               static_cast<int>(observations.ranks().size()));
        if (calibrated == nullptr || !calibrated->healthy_fraction) break;
        const auto& bands = thresholds.calibration().bands();
        return {*calibrated->healthy_fraction * bands.warn_below, *calibrated->healthy_fraction * bands.fail_below};
    }
    if (!rule->fraction_of_nominal) return {};
    return {rule->fraction_of_nominal->warn, rule->fraction_of_nominal->fail};
}

// An error or residual bound is a tolerance, no capability: "usable against nominal" would draw a
// relative error of 1e-12 under a bound of 1e-5 as 10 million times the part's nominal.
bool nominal_is_capability(const std::string& metric) {
    const MetricSpec* declared = Registry::instance().declaration(metric.substr(0, metric.find('.')), metric);
    return declared == nullptr || declared->nominal_role == NominalRole::capability;
}

json bars_view(const ReportModel& model, const Thresholds& thresholds, std::size_t max_charts) {
    std::set<std::string> with_nominal;
    for (const NodeMetrics& node : model.node_metrics)
        for (const NodeMetric& metric : node.metrics)
            if (metric.usable_fraction() && metric.name.find("_max") == std::string::npos &&
                metric.name.find("_min") == std::string::npos && nominal_is_capability(metric.name))
                with_nominal.insert(metric.name);
    // The judged headline metrics first, then the rest by name.
    std::vector<std::string> ordered;
    for (const DeclaredHeadline& declared : headline_figures())
        if (declared.figure.charted && with_nominal.erase(declared.figure.metric)) ordered.push_back(declared.figure.metric);
    ordered.insert(ordered.end(), with_nominal.begin(), with_nominal.end());
    json charts = json::array();
    for (std::size_t i = 0; i < ordered.size() && i < max_charts; ++i)
        charts.push_back(svg_node_bars(model.node_metrics, ordered[i], band_for(ordered[i], model, thresholds)));
    json note = false;
    if (ordered.size() > max_charts)
        note = fmt::format("{} more metrics with a nominal figure are in summary.json (nodes[].metrics).",
                           ordered.size() - max_charts);
    return {{"charts", std::move(charts)}, {"note", std::move(note)}};
}

json timelines_view(const std::vector<const Finding*>& findings, const Observations& observations,
                    const Thresholds& thresholds, RunDetails& details, std::size_t max_timelines) {
    json plots = json::array();
    std::vector<const Finding*> ordered = findings;  // what the telemetry explains first
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const Finding* a, const Finding* b) { return a->telemetry_coincided > b->telemetry_coincided; });
    std::set<std::tuple<std::string, int, std::string, int>> seen;  // node, gpu, test, rank: one plot each
    // Time axes count from the run's start, so the plots of one report share one clock.
    const double recorded_start = observations.run().manifest.start_utc;
    const std::optional<double> run_start = recorded_start > 0.0 ? std::optional<double>(recorded_start) : std::nullopt;
    for (const Finding* finding : ordered) {
        if (plots.size() >= max_timelines) break;
        const TestResult* test = observations.test_of(finding->rank, finding->test);
        if (test == nullptr || test->end_utc <= test->start_utc) continue;
        if (!seen.insert({finding->node, finding->gpu.value_or(-1), finding->test, finding->rank}).second) continue;
        const NodeDetails& node = details.node(finding->node);
        const std::optional<std::string> device =
            finding->gpu ? gpu_telemetry_table(node, finding->gpu_uuid, finding->gpu) : std::optional<std::string>("host");
        if (!device) continue;
        auto table = node.telemetry.find(*device);
        if (table == node.telemetry.end()) continue;
        std::vector<TimelineSeries> series;
        if (finding->gpu) {
            const double limit = thresholds.settings().temperature_limit();
            namespace gpu = telemetry_columns::gpu;
            series = {{std::string(gpu::sm_clock_mhz), "SM clock (MHz; dashed: max)", gpu_max_sm_clock(node.inventory, *finding)},
                      {std::string(gpu::power_w), "power (W; dashed: limit)", std::nullopt},
                      {std::string(gpu::temperature_c), fmt::format("temperature (C; dashed: {} C)", format_number(limit)), limit}};
            const std::vector<double> limits = table->second.column(gpu::power_limit_w);
            if (!limits.empty()) series[1].reference = limits.back();
        } else {
            namespace host = telemetry_columns::host;
            series = {{std::string(host::cpu_mhz_mean), "CPU clock (MHz)", std::nullopt},
                      {std::string(host::loadavg_1m), "load average", std::nullopt},
                      {std::string(host::max_thermal_c), "CPU temperature (C)", thresholds.settings().temperature_limit()}};
        }
        plots.push_back({{"heading", fmt::format("{} {} {}: {}", finding->node, upper(*device), finding->test, finding->reason)},
                         {"telemetry", finding->explanation.empty() ? json(false) : json("telemetry: " + finding->explanation)},
                         {"svg", svg_timeline(table->second, series, test->start_utc, test->end_utc, 5.0, run_start)}});
    }
    return plots;
}

json fleet_view(const AnalysisResult& result) {
    if (result.fleet.empty()) return false;
    json rows = json::array();
    for (const FleetReference& reference : result.fleet)
        rows.push_back({{"metric", reference.metric},
                        {"units", fmt::format("{} {}", reference.units, reference.per_gpu ? "GPUs" : "nodes")},
                        {"median", format_number(reference.median) + " " + reference.unit},
                        {"mad", format_number(reference.mad)},
                        {"nominal", reference.nominal ? format_number(*reference.nominal) : "-"},
                        {"ratio", reference.nominal && *reference.nominal > 0
                                      ? fmt::format("{:.2f}", reference.median / *reference.nominal) : "-"}});
    return {{"rows", std::move(rows)}};
}

json price_view(const ReportModel& model) {
    if (!model.price) return false;
    const PriceReport& price = *model.price;
    json columns = json::array();
    for (const PriceLine& line : price.fleet) columns.push_back(line.quantity);
    auto number = [](const std::optional<double>& value) { return value ? format_number(*value) : std::string("-"); };
    json rows = json::array();
    for (const NodePrice& node : price.nodes) {
        json cells = json::array();
        for (const PriceLine& line : node.lines)
            for (const std::string& text : {number(line.usable), number(line.per_usable_hour), number(line.per_nominal_hour)})
                cells.push_back(text);
        rows.push_back({{"node", node.node}, {"cells", cells}});
    }
    return {{"lines", model.price_lines}, {"columns", std::move(columns)}, {"rows", std::move(rows)}};
}

json figures_view(const ReportModel& model) {
    json figures = json::array();
    for (const ReportFigure& figure : report_figures(model))
        figures.push_back({{"id", figure.id}, {"title", figure.title}, {"svg", figure.svg}, {"caption", figure.caption}});
    return figures.empty() ? json(false) : json{{"list", std::move(figures)}};
}

}  // namespace

std::string html_report(const ReportModel& model, const Thresholds& thresholds, RunDetails& details,
                        const ReportContext& context, const HtmlReportOptions& options) {
    json view = report_view(model, context.header, context.identity);
    std::size_t total = 0;
    const std::vector<const Finding*> findings = top_findings(model, options.findings_per_node, total);
    view["findings"] = findings_view(findings, total, options.max_findings, options.findings_per_node);
    view["heatmap"] = heatmap_view(model);
    view["other_heatmaps"] = other_heatmaps_view(model);
    view["bars"] = bars_view(model, thresholds, options.max_bar_charts);
    view["timelines"] = timelines_view(findings, *model.observations, thresholds, details, options.max_timelines);
    view["fleet"] = fleet_view(*model.result);
    view["price"] = price_view(model);
    view["figures"] = figures_view(model);
    view["thresholds_source"] = thresholds.source();
    return render_template(html_template_file, context.templates->html, view,
                           [](const std::string& text) { return escape_markup(text); });
}

}  // namespace shakedown::analysis
