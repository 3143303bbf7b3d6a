#include "analysis/history/node_history_report.hpp"

#include "analysis/report/markdown_report.hpp"
#include "analysis/rules/model/finding.hpp"
#include "core/clock.hpp"
#include "core/printable_text.hpp"

#include <fmt/format.h>

#include <cmath>

namespace shakedown::analysis {
namespace {

std::string when(const RunRecord& run) { return format_utc(run.start_utc).substr(0, 19); }

std::string ratio(double node, double fleet) {
    return fleet != 0.0 && std::isfinite(fleet) ? fmt::format("{:.3f}", node / fleet) : "-";
}

std::string readings(const NodeHistory& history, const CounterTrend& trend) {
    std::string text;
    for (const CounterTrendPoint& point : trend.points)
        text += fmt::format("{}{} {}", text.empty() ? "" : ", ", history.runs[point.run].header.run_id,
                            format_number(point.last));
    return text;
}

// "+5 into r2, +1 into r3": the runs the counter rose into.
std::string rises(const NodeHistory& history, const CounterTrend& trend) {
    std::string text;
    for (const CounterTrendPoint& point : trend.points)
        if (point.rise > 0)
            text += fmt::format("{}+{} {} {}", text.empty() ? "" : ", ", format_number(point.rise),
                                &point == &trend.points.front() ? "within" : "into", history.runs[point.run].header.run_id);
    return text;
}

// One line of terminal text: what came from traces (node names, units) made harmless.

// A GPU's figure is titled with its UUID and its column is "GPU"; the node's is "node".
std::string on_gpu(const MetricTrend& trend) { return trend.gpu_uuid.empty() ? "" : " on GPU " + trend.gpu_uuid; }
std::string_view figure_of(const MetricTrend& trend) { return trend.gpu_uuid.empty() ? "node" : "GPU"; }

std::string better_words(Better better) { return better == Better::higher ? "higher is better" : "lower is better"; }

}  // namespace

std::string node_history_text(const NodeHistory& history) {
    std::string out = escaped_line(fmt::format("history of {}: {} run(s)", history.node, history.runs.size()));
    for (const HistoryRunEntry& run : history.runs)
        out += escaped_line(fmt::format("  {}  {}  node {}, run {}", run.header.run_id, when(run.header),
                                run.node_verdict.empty() ? "-" : run.node_verdict,
                                run.header.verdict.empty() ? "-" : run.header.verdict));
    for (const MetricTrend& trend : history.metrics) {
        out += "\n" + escaped_line(fmt::format("{}{} [{}; {}]", trend.metric, on_gpu(trend), trend.unit,
                                               better_words(trend.better)));
        out += fmt::format("  {:<24} {:>12} {:>14} {:>10}\n", "run", figure_of(trend), "fleet median",
                           fmt::format("{}/fleet", figure_of(trend)));
        for (const MetricTrendPoint& point : trend.points)
            out += escaped_line(fmt::format("  {:<24} {:>12} {:>14} {:>10}", history.runs[point.run].header.run_id,
                                    format_number(point.node), format_number(point.fleet_median),
                                    ratio(point.node, point.fleet_median)));
    }
    out += "\nCounters:\n";
    if (history.counters.empty()) out += "  none recorded\n";
    int rose = 0;
    for (const CounterTrend& trend : history.counters)
        if (trend.total_rise() > 0) {
            ++rose;
            out += escaped_line(fmt::format("  ROSE {} {}: {} ({})", trend.device, trend.counter, readings(history, trend),
                                    rises(history, trend)));
        }
    const std::size_t flat = history.counters.size() - static_cast<std::size_t>(rose);
    if (flat > 0) out += fmt::format("  {} other counter(s) did not rise\n", flat);
    return out;
}

std::string node_history_markdown(const NodeHistory& history) {
    std::string md =
        fmt::format("## History of {}\n\n| run | start (UTC) | node verdict | run verdict |\n|---|---|---|---|\n",
                    escape_markdown(history.node));
    for (const HistoryRunEntry& run : history.runs)
        md += fmt::format("| {} | {} | {} | {} |\n", escape_markdown(run.header.run_id), when(run.header),
                          escape_markdown(run.node_verdict), escape_markdown(run.header.verdict));
    for (const MetricTrend& trend : history.metrics) {
        md += fmt::format("\n### {}{} ({}; {})\n\n| run | {} | fleet median | {}/fleet |\n|---|---|---|---|\n",
                          escape_markdown(trend.metric), escape_markdown(on_gpu(trend)), escape_markdown(trend.unit),
                          better_words(trend.better), figure_of(trend), figure_of(trend));
        for (const MetricTrendPoint& point : trend.points)
            md += fmt::format("| {} | {} | {} | {} |\n", escape_markdown(history.runs[point.run].header.run_id),
                              format_number(point.node), format_number(point.fleet_median),
                              ratio(point.node, point.fleet_median));
    }
    md += "\n### Counters that rose\n\n";
    bool any = false;
    for (const CounterTrend& trend : history.counters)
        if (trend.total_rise() > 0) {
            any = true;
            md += fmt::format("- {} {}: {} ({})\n", escape_markdown(trend.device), escape_markdown(trend.counter),
                              escape_markdown(readings(history, trend)), escape_markdown(rises(history, trend)));
        }
    if (!any) md += "None.\n";
    return md;
}

nlohmann::json node_history_json(const NodeHistory& history) {
    nlohmann::json runs = nlohmann::json::array();
    for (const HistoryRunEntry& run : history.runs)
        runs.push_back({{"run_id", run.header.run_id},
                        {"identity", run.header.identity},
                        {"start_utc", format_utc(run.header.start_utc)},
                        {"node_verdict", run.node_verdict},
                        {"run_verdict", run.header.verdict}});
    auto number = [](double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(); };
    nlohmann::json metrics = nlohmann::json::array();
    for (const MetricTrend& trend : history.metrics) {
        nlohmann::json points = nlohmann::json::array();
        for (const MetricTrendPoint& point : trend.points)
            points.push_back({{"run_id", history.runs[point.run].header.run_id},
                              {"node", number(point.node)},
                              {"fleet_median", number(point.fleet_median)},
                              {"fleet_figures", point.fleet_figures}});
        metrics.push_back({{"metric", trend.metric},
                           {"gpu_uuid", trend.gpu_uuid.empty() ? nlohmann::json() : nlohmann::json(trend.gpu_uuid)},
                           {"unit", trend.unit},
                           {"better", to_string(trend.better)},
                           {"runs", std::move(points)}});
    }
    nlohmann::json counters = nlohmann::json::array();
    for (const CounterTrend& trend : history.counters) {
        nlohmann::json points = nlohmann::json::array();
        for (const CounterTrendPoint& point : trend.points)
            points.push_back({{"run_id", history.runs[point.run].header.run_id},
                              {"first", number(point.first)},
                              {"last", number(point.last)},
                              {"rise", point.rise}});
        counters.push_back({{"device", trend.device},
                            {"counter", trend.counter},
                            {"unit", trend.unit},
                            {"rose", trend.total_rise() > 0},
                            {"runs", std::move(points)}});
    }
    return {{"node", history.node},
            {"metric", history.metric ? nlohmann::json(*history.metric) : nlohmann::json()},
            {"runs", std::move(runs)},
            {"metrics", std::move(metrics)},
            {"counters", std::move(counters)}};
}

}  // namespace shakedown::analysis
