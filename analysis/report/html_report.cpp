#include "analysis/report/html_report.hpp"

#include "telemetry/telemetry_columns.hpp"

#include "analysis/report/markup.hpp"
#include "analysis/report/svg_plots.hpp"
#include "analysis/rules/telemetry_explanation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace shakedown::analysis {
namespace {

constexpr std::string_view style = R"(
body { font-family: sans-serif; margin: 24px; color: #222; max-width: 1350px; }
h1 { font-size: 22px; } h3 { font-size: 14px; margin-bottom: 2px; } h2 { font-size: 18px; border-bottom: 1px solid #ccc; padding-bottom: 4px; margin-top: 28px; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; white-space: nowrap; }
.pass { background: #dff0d8; } .warn { background: #fcf8e3; } .fail { background: #f2dede; } .incomplete { background: #e8e0f0; } .error { background: #f5d0a9; }
.verdict { font-size: 20px; font-weight: bold; padding: 6px 12px; display: inline-block; border-radius: 4px; }
.telemetry { color: #555; font-size: 12px; }
.plot { display: block; margin: 8px 0 16px 0; }
p.note { color: #666; font-size: 12px; }
)";

std::string cell(std::string_view content, std::string_view css_class = "") {
    return css_class.empty() ? fmt::format("<td>{}</td>", escape_markup(content))
                             : fmt::format("<td class=\"{}\">{}</td>", css_class, escape_markup(content));
}

void verdict_table(std::string& html, const ReportModel& model) {
    html += "<h2>Verdict per node</h2>\n<table><tr><th>node</th><th>ranks</th><th>verdict</th><th>passed</th>"
            "<th>warned</th><th>failed</th><th>to fix</th><th>waived</th><th>worst finding</th></tr>\n";
    for (const NodeReport& node : model.nodes) {
        const NodeVerdict& row = *node.verdict;
        const std::string verdict(to_string(row.verdict));
        html += "<tr>" + cell(row.node) + cell(node.ranks) + cell(upper(verdict), verdict) +
                cell(std::to_string(row.tests.passed), "num") + cell(std::to_string(row.tests.warned), "num") +
                cell(std::to_string(row.tests.failed), "num") + cell(std::to_string(row.tests.errored), "num") +
                cell(std::to_string(row.tests.waived), "num") +
                cell(node.worst) + "</tr>\n";
        if (row.verdict == Verdict::pass) continue;  // a node that is not a PASS shows each of its GPUs
        for (const DeviceRow& device : node.devices) {
            const std::string level(to_string(device.verdict));
            html += "<tr>" + cell(fmt::format("  GPU {}", device.gpu)) + cell(std::to_string(device.rank)) +
                    cell(upper(level), level) + "<td colspan=\"5\"></td>" + cell(device.worst) + "</tr>\n";
        }
    }
    html += "</table>\n";
}

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

void findings_table(std::string& html, const std::vector<const Finding*>& findings, std::size_t total,
                    std::size_t max_findings, std::size_t per_node) {
    html += fmt::format("<h2>Top findings ({} of {})</h2>\n", std::min(findings.size(), max_findings), total);
    if (findings.empty()) {
        html += "<p>No finding: every judged metric is within its thresholds, its fleet and its baseline.</p>\n";
        return;
    }
    html += "<table><tr><th>level</th><th>node</th><th>rank</th><th>GPU</th><th>test</th><th>rule</th><th>value</th>"
            "<th>nominal</th><th>usable / nominal</th><th>reason and telemetry</th></tr>\n";
    for (std::size_t i = 0; i < findings.size() && i < max_findings; ++i) {
        const Finding& finding = *findings[i];
        const std::string level(to_string(finding.level));
        std::string reason = escape_markup(finding.reason);
        if (finding.telemetry_coincided)
            reason += "<br/><span class=\"telemetry\">telemetry: " + escape_markup(finding.explanation) + "</span>";
        html += "<tr>" + cell(upper(level), level) + cell(finding.node) + cell(std::to_string(finding.rank), "num") +
                cell(finding.gpu ? std::to_string(*finding.gpu) : "-", "num") + cell(finding.test) +
                cell(to_string(finding.source)) +
                cell(finding.value ? format_number(*finding.value) + " " + finding.unit : "-", "num") +
                cell(finding.nominal ? format_number(*finding.nominal) : "-", "num") +
                cell(finding.usable_fraction() ? fmt::format("{:.2f}", *finding.usable_fraction()) : "-", "num") +
                "<td>" + reason + "</td></tr>\n";
    }
    html += "</table>\n";
    if (total > std::min(findings.size(), max_findings))
        html += fmt::format("<p class=\"note\">At most {} per node and {} in all shown; all {} findings, each with what "
                            "the telemetry showed, are in summary.json.</p>\n", per_node, max_findings, total);
}

void localization_section(std::string& html, const ReportModel& model) {
    html += "<h2>Links (allpairs)</h2>\n";
    const std::optional<LinkLocalization>& links = model.result->links;
    if (!links) {
        html += "<p>No allpairs matrix in this run (the test did not run on rank 0).</p>\n";
        return;
    }
    html += "<ul>\n";
    for (const std::string& line : model.localization_lines) html += "<li>" + escape_markup(line) + "</li>\n";
    html += "</ul>\n";
    if (links->analyzed && !links->links.empty()) html += svg_link_heatmap(*links);
}

// The WARN and FAIL lines of a metric's bars: against the calibrated healthy figure where the
// fleet's part has one (the judging does the same), else the generic band of nominal.
BarBand band_for(const std::string& metric, const ReportModel& model, const Thresholds& thresholds) {
    const MetricRule* rule = thresholds.rule_for(metric);
    if (rule == nullptr || !rule->fraction_of_nominal) return {};
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
    return {rule->fraction_of_nominal->warn, rule->fraction_of_nominal->fail};
}

void bars_section(std::string& html, const ReportModel& model, const Thresholds& thresholds, std::size_t max_charts) {
    std::set<std::string> with_nominal;
    for (const NodeMetrics& node : model.node_metrics)
        for (const NodeMetric& metric : node.metrics)
            if (metric.usable_fraction() && metric.name.find("_max") == std::string::npos &&
                metric.name.find("_min") == std::string::npos)
                with_nominal.insert(metric.name);
    html += "<h2>Usable against nominal, per node</h2>\n";
    if (with_nominal.empty()) {
        html += "<p>No metric of this run carries a nominal figure.</p>\n";
        return;
    }
    // The judged headline metrics first, then the rest by name.
    std::vector<std::string> ordered;
    for (const char* first : {"dgemm_fp64.tflops", "stream.triad_gbs", "gemm_ladder.bf16_tflops", "gemm_ladder.fp64_tflops",
                              "stencil3d.gcells_per_s"})
        if (with_nominal.erase(first)) ordered.emplace_back(first);
    ordered.insert(ordered.end(), with_nominal.begin(), with_nominal.end());
    for (std::size_t i = 0; i < ordered.size() && i < max_charts; ++i) {
        html += svg_node_bars(model.node_metrics, ordered[i], band_for(ordered[i], model, thresholds));
    }
    if (ordered.size() > max_charts)
        html += fmt::format("<p class=\"note\">{} more metrics with a nominal figure are in summary.json (nodes[].metrics).</p>\n",
                            ordered.size() - max_charts);
}

void timelines_section(std::string& html, const std::vector<const Finding*>& findings, const Observations& observations,
                       const Thresholds& thresholds, RunDetails& details, std::size_t max_timelines) {
    html += "<h2>Telemetry around findings</h2>\n";
    std::vector<const Finding*> ordered = findings;  // what the telemetry explains first
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const Finding* a, const Finding* b) { return a->telemetry_coincided > b->telemetry_coincided; });
    std::size_t drawn = 0;
    std::set<std::tuple<std::string, int, std::string, int>> seen;  // node, gpu, test, rank: one plot each
    for (const Finding* finding : ordered) {
        if (drawn >= max_timelines) break;
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
        html += "<h3>" + escape_markup(fmt::format("{} {} {}: {}", finding->node, upper(*device), finding->test, finding->reason)) +
                "</h3>\n";
        if (!finding->explanation.empty())
            html += "<p class=\"telemetry\">" + escape_markup("telemetry: " + finding->explanation) + "</p>\n";
        html += svg_timeline(table->second, series, test->start_utc, test->end_utc);
        ++drawn;
    }
    if (drawn == 0) html += "<p>No finding has telemetry recorded in its window.</p>\n";
}

void fleet_section(std::string& html, const AnalysisResult& result) {
    if (result.fleet.empty()) return;
    html += "<h2>Fleet references</h2>\n<table><tr><th>metric</th><th>units</th><th>median</th><th>MAD</th>"
            "<th>nominal</th><th>median / nominal</th></tr>\n";
    for (const FleetReference& reference : result.fleet)
        html += "<tr>" + cell(reference.metric) +
                cell(fmt::format("{} {}", reference.units, reference.per_gpu ? "GPUs" : "nodes"), "num") +
                cell(format_number(reference.median) + " " + reference.unit, "num") + cell(format_number(reference.mad), "num") +
                cell(reference.nominal ? format_number(*reference.nominal) : "-", "num") +
                cell(reference.nominal && *reference.nominal > 0 ? fmt::format("{:.2f}", reference.median / *reference.nominal) : "-",
                     "num") +
                "</tr>\n";
    html += "</table>\n";
}

void fp64_section(std::string& html, const ReportModel& model) {
    if (model.fp64_table.rows.empty() && model.fp64_lines.empty()) return;
    html += "<h2>FP64 capability</h2>\n";
    if (!model.fp64_table.rows.empty()) {
        html += "<table><tr>";
        for (const std::string& title : model.fp64_table.header) html += "<th>" + escape_markup(title) + "</th>";
        html += "</tr>\n";
        for (const auto& row : model.fp64_table.rows) {
            html += "<tr>";
            for (std::size_t i = 0; i < row.size(); ++i) html += cell(row[i], i < 2 ? "" : "num");
            html += "</tr>\n";
        }
        html += "</table>\n";
    }
    if (!model.fp64_lines.empty()) {
        html += "<ul>\n";
        for (const std::string& line : model.fp64_lines) html += "<li>" + escape_markup(line) + "</li>\n";
        html += "</ul>\n";
    }
}

void price_section(std::string& html, const ReportModel& model) {
    if (!model.price) return;
    const PriceReport& price = *model.price;
    html += "<h2>Price per usable throughput</h2>\n<ul>\n";
    for (const std::string& line : model.price_lines) html += "<li>" + escape_markup(line) + "</li>\n";
    html += "</ul>\n<table><tr><th>node</th>";
    for (const PriceLine& line : price.fleet)
        html += "<th>" + escape_markup(line.quantity) + " usable</th><th>per usable / h</th><th>per nominal / h</th>";
    html += "</tr>\n";
    for (const NodePrice& node : price.nodes) {
        html += "<tr>" + cell(node.node);
        for (const PriceLine& line : node.lines) {
            auto number = [](const std::optional<double>& value) { return value ? format_number(*value) : std::string("-"); };
            html += cell(number(line.usable), "num") + cell(number(line.per_usable_hour), "num") +
                    cell(number(line.per_nominal_hour), "num");
        }
        html += "</tr>\n";
    }
    html += "</table>\n";
}

}  // namespace

std::string html_report(const ReportModel& model, const Thresholds& thresholds, RunDetails& details,
                        const HtmlReportOptions& options) {
    const AnalysisResult& result = *model.result;
    const Judgement& judgement = result.judgement;
    std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n";
    html += "<title>" + escape_markup(model.title) + "</title>\n";
    html += "<style>" + std::string(style) + "</style>\n</head>\n<body>\n";
    html += "<h1>" + escape_markup(model.title) + "</h1>\n";
    const std::string verdict(to_string(judgement.overall));
    html += fmt::format("<p><span class=\"verdict {}\">{}</span></p>\n", verdict, upper(verdict));
    html += "<p>" + escape_markup(model.verdict_line) + "<br/>" +
            escape_markup(fmt::format("{}; thresholds: {}", model.overview, thresholds.source())) + "</p>\n";
    if (!model.incomplete_lines.empty()) {
        html += "<h2>Incomplete run</h2>\n<ul>\n";
        for (std::size_t i = 0; i < model.incomplete_lines.size() && i < 50; ++i)
            html += "<li>" + escape_markup(model.incomplete_lines[i]) + "</li>\n";
        html += "</ul>\n";
    }
    if (!model.fix_lines.empty()) {
        html += "<h2>To fix before the hardware can be judged (not drained)</h2>\n<ul>\n";
        for (std::size_t i = 0; i < model.fix_lines.size() && i < 50; ++i)
            html += "<li>" + escape_markup(model.fix_lines[i]) + "</li>\n";
        html += "</ul>\n";
    }
    if (!model.confirmation_lines.empty()) {
        html += "<h2>Confirm before drain</h2>\n<ul>\n";
        for (const std::string& line : model.confirmation_lines) html += "<li>" + escape_markup(line) + "</li>\n";
        html += "</ul>\n";
    }
    verdict_table(html, model);
    std::size_t total = 0;
    const std::vector<const Finding*> findings = top_findings(model, options.findings_per_node, total);
    findings_table(html, findings, total, options.max_findings, options.findings_per_node);
    localization_section(html, model);
    if (!model.hidden_fault_lines.empty()) {
        html += "<h2>Hidden faults</h2>\n<ul>\n";
        for (std::size_t i = 0; i < model.hidden_fault_lines.size() && i < 200; ++i)
            html += "<li>" + escape_markup(model.hidden_fault_lines[i]) + "</li>\n";
        html += "</ul>\n";
    }
    bars_section(html, model, thresholds, options.max_bar_charts);
    timelines_section(html, findings, *model.observations, thresholds, details, options.max_timelines);
    fleet_section(html, result);
    if (model.baseline_line) html += "<h2>Baseline</h2>\n<p>" + escape_markup(*model.baseline_line) + "</p>\n";
    fp64_section(html, model);
    price_section(html, model);
    if (!model.waiver_lines.empty()) {
        html += "<h2>Waived</h2>\n<ul>\n";
        for (std::size_t i = 0; i < model.waiver_lines.size() && i < 50; ++i)
            html += "<li>" + escape_markup(model.waiver_lines[i]) + "</li>\n";
        html += "</ul>\n";
    }
    html += "<p class=\"note\">" + escape_markup(fmt::format("shakedown-analyze {}", SHAKEDOWN_VERSION)) + "</p>\n";
    html += "</body>\n</html>\n";
    return html;
}

}  // namespace shakedown::analysis
