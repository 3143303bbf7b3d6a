#include "analysis/html_report.hpp"

#include "telemetry/telemetry_columns.hpp"

#include "analysis/markup.hpp"
#include "analysis/svg_plots.hpp"
#include "analysis/terminal_report.hpp"

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
.pass { background: #dff0d8; } .warn { background: #fcf8e3; } .fail { background: #f2dede; } .incomplete { background: #e8e0f0; }
.verdict { font-size: 20px; font-weight: bold; padding: 6px 12px; display: inline-block; border-radius: 4px; }
.telemetry { color: #555; font-size: 12px; }
.plot { display: block; margin: 8px 0 16px 0; }
p.note { color: #666; font-size: 12px; }
)";

std::string cell(std::string_view content, std::string_view css_class = "") {
    return css_class.empty() ? fmt::format("<td>{}</td>", escape_markup(content))
                             : fmt::format("<td class=\"{}\">{}</td>", css_class, escape_markup(content));
}

std::string upper(std::string_view text) {
    std::string result(text);
    std::transform(result.begin(), result.end(), result.begin(), [](unsigned char c) { return std::toupper(c); });
    return result;
}

void verdict_table(std::string& html, const Judgement& judgement) {
    html += "<h2>Verdict per node</h2>\n<table><tr><th>node</th><th>ranks</th><th>verdict</th><th>passed</th>"
            "<th>warned</th><th>failed</th><th>waived</th><th>worst finding</th></tr>\n";
    for (const NodeVerdict& node : judgement.nodes) {
        const Finding* worst = node.worst_finding();
        const std::string worst_text = worst != nullptr        ? worst->reason
                                       : !node.incomplete.empty() ? node.incomplete.front()
                                                                  : "-";
        const std::string verdict(to_string(node.verdict));
        html += "<tr>" + cell(node.node) + cell(compact_rank_list(node.ranks)) + cell(upper(verdict), verdict) +
                cell(std::to_string(node.tests.passed), "num") + cell(std::to_string(node.tests.warned), "num") +
                cell(std::to_string(node.tests.failed), "num") + cell(std::to_string(node.tests.waived), "num") +
                cell(worst_text) + "</tr>\n";
    }
    html += "</table>\n";
}

// The most telling first: FAIL before WARN; localization, then what the telemetry explains.
int telling(const Finding& finding) {
    if (finding.source == FindingSource::links || finding.source == FindingSource::collective) return 0;
    return finding.telemetry_coincided ? 1 : 2;
}

// Per node at most `per_node` findings (the most telling), FAILs first.
std::vector<const Finding*> top_findings(const Judgement& judgement, std::size_t per_node, std::size_t& total) {
    std::vector<const Finding*> findings;
    total = 0;
    for (const NodeVerdict& node : judgement.nodes) {
        std::vector<const Finding*> mine;
        for (const Finding& finding : node.findings) mine.push_back(&finding);
        total += mine.size();
        std::stable_sort(mine.begin(), mine.end(), [](const Finding* a, const Finding* b) {
            return a->level != b->level ? a->level > b->level : telling(*a) < telling(*b);
        });
        for (std::size_t i = 0; i < mine.size() && i < per_node; ++i) findings.push_back(mine[i]);
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

void localization_section(std::string& html, const AnalysisResult& result) {
    html += "<h2>Links (allpairs)</h2>\n";
    if (!result.links) {
        html += "<p>No allpairs matrix in this run (the test did not run on rank 0).</p>\n";
        return;
    }
    const LinkLocalization& links = *result.links;
    if (!links.analyzed) {
        html += "<p>" + escape_markup("Not localized: " + links.note) + "</p>\n";
    } else {
        html += "<ul>\n";
        auto item = [&](const std::string& text) { html += "<li>" + escape_markup(text) + "</li>\n"; };
        item(fmt::format("{} nodes, {} node pairs; healthy link level {} GB/s; a link below {:.2f} x its peers is slow",
                         links.nodes.size(), links.links.size(), format_number(links.healthy_gbs), links.slow_fraction));
        std::set<std::string> said;  // a slow link or group is a finding on several nodes: say it once
        for (const NodeVerdict& node : result.judgement.nodes)
            for (const Finding& finding : node.findings)
                if (finding.source == FindingSource::links && said.insert(finding.reason).second) item(finding.reason);
        if (links.slow_nodes.empty() && links.slow_links.empty() && links.slow_groups.empty())
            item("no slow node, link or group");
        html += "</ul>\n";
    }
    if (!links.links.empty()) html += svg_link_heatmap(links);
}

void bars_section(std::string& html, const AnalysisResult& result, const Thresholds& thresholds, std::size_t max_charts) {
    std::set<std::string> with_nominal;
    for (const NodeMetrics& node : result.node_metrics)
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
        BarBand band;
        if (const MetricRule* rule = thresholds.rule_for(ordered[i]); rule != nullptr && rule->fraction_of_nominal)
            band = {rule->fraction_of_nominal->warn, rule->fraction_of_nominal->fail};
        html += svg_node_bars(result.node_metrics, ordered[i], band);
    }
    if (ordered.size() > max_charts)
        html += fmt::format("<p class=\"note\">{} more metrics with a nominal figure are in summary.json (nodes[].metrics).</p>\n",
                            ordered.size() - max_charts);
}

std::optional<double> gpu_inventory_number(const nlohmann::json& inventory, int gpu, const char* key) {
    if (!inventory.is_object() || !inventory.contains("gpus") || !inventory["gpus"].is_array()) return std::nullopt;
    for (const auto& entry : inventory["gpus"])
        if (entry.is_object() && entry.value("index", -1) == gpu && entry.contains(key) && entry[key].is_number())
            return entry[key].get<double>();
    return std::nullopt;
}

void timelines_section(std::string& html, const std::vector<const Finding*>& findings, const Thresholds& thresholds,
                       RunDetails& details, std::size_t max_timelines) {
    html += "<h2>Telemetry around findings</h2>\n";
    std::vector<const Finding*> ordered = findings;  // what the telemetry explains first
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const Finding* a, const Finding* b) { return a->telemetry_coincided > b->telemetry_coincided; });
    std::size_t drawn = 0;
    std::set<std::tuple<std::string, int, std::string, int>> seen;  // node, gpu, test, rank: one plot each
    for (const Finding* finding : ordered) {
        if (drawn >= max_timelines) break;
        const TestResult* test = details.test_result(finding->rank, finding->test);
        if (test == nullptr || test->end_utc <= test->start_utc) continue;
        if (!seen.insert({finding->node, finding->gpu.value_or(-1), finding->test, finding->rank}).second) continue;
        const NodeDetails& node = details.node(finding->node);
        const std::string device = finding->gpu ? fmt::format("gpu{}", *finding->gpu) : "host";
        auto table = node.telemetry.find(device);
        if (table == node.telemetry.end()) continue;
        std::vector<TimelineSeries> series;
        if (finding->gpu) {
            const double limit = thresholds.settings().temperature_limit();
            namespace gpu = telemetry_columns::gpu;
            series = {{std::string(gpu::sm_clock_mhz), "SM clock (MHz; dashed: max)", gpu_inventory_number(node.inventory, *finding->gpu,
                                                                                           "max_sm_clock_mhz")},
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
        html += "<h3>" + escape_markup(fmt::format("{} {} {}: {}", finding->node, finding->gpu ? "GPU" + std::to_string(*finding->gpu) : "host",
                                                   finding->test, finding->reason)) + "</h3>\n";
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

void price_section(std::string& html, const AnalysisResult& result) {
    if (!result.price) return;
    const PriceReport& price = *result.price;
    html += "<h2>Price per usable throughput</h2>\n<ul>\n";
    for (const std::string& line : price_lines(price)) html += "<li>" + escape_markup(line) + "</li>\n";
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

std::string html_report(const LoadedRun& run, const AnalysisResult& result, const Thresholds& thresholds,
                        RunDetails& details, const HtmlReportOptions& options) {
    const Judgement& judgement = result.judgement;
    std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n";
    html += "<title>" + escape_markup(fmt::format("shakedown run {}", run.manifest.run_id)) + "</title>\n";
    html += "<style>" + std::string(style) + "</style>\n</head>\n<body>\n";
    html += "<h1>" + escape_markup(fmt::format("shakedown run {}", run.manifest.run_id)) + "</h1>\n";
    const std::string verdict(to_string(judgement.overall));
    std::map<Verdict, int> by_verdict;
    for (const NodeVerdict& node : judgement.nodes) ++by_verdict[node.verdict];
    html += fmt::format("<p><span class=\"verdict {}\">{}</span></p>\n", verdict, upper(verdict));
    html += "<p>" + escape_markup(fmt::format(
                        "suite {}, {} rank(s) on {} node(s), run status {}; nodes: {} pass, {} warn, {} fail, {} incomplete; "
                        "thresholds: {}",
                        run.manifest.suite.empty() ? "-" : run.manifest.suite, run.manifest.world_size,
                        judgement.nodes.size(), run.manifest.status, by_verdict[Verdict::pass], by_verdict[Verdict::warn],
                        by_verdict[Verdict::fail], by_verdict[Verdict::incomplete], thresholds.source())) +
            "</p>\n";
    if (!judgement.incomplete.empty()) {
        html += "<h2>Incomplete run</h2>\n<ul>\n";
        for (std::size_t i = 0; i < judgement.incomplete.size() && i < 50; ++i)
            html += "<li>" + escape_markup(judgement.incomplete[i]) + "</li>\n";
        html += "</ul>\n";
    }
    verdict_table(html, judgement);
    std::size_t total = 0;
    const std::vector<const Finding*> findings = top_findings(judgement, options.findings_per_node, total);
    findings_table(html, findings, total, options.max_findings, options.findings_per_node);
    localization_section(html, result);
    bars_section(html, result, thresholds, options.max_bar_charts);
    timelines_section(html, findings, thresholds, details, options.max_timelines);
    fleet_section(html, result);
    if (result.baseline)
        html += "<h2>Baseline</h2>\n<p>" +
                escape_markup(fmt::format("run {}: {} values compared, {} regressions beyond {:.0f} %, {} improvements",
                                          result.baseline->baseline_run_id, result.baseline->compared,
                                          result.baseline->regressions, result.baseline->tolerance * 100,
                                          result.baseline->improvements)) +
                "</p>\n";
    price_section(html, result);
    html += "<p class=\"note\">" + escape_markup(fmt::format("shakedown-analyze {}", SHAKEDOWN_VERSION)) + "</p>\n";
    html += "</body>\n</html>\n";
    return html;
}

}  // namespace shakedown::analysis
