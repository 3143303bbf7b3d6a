#include "analysis/history/comparison_report.hpp"

#include "analysis/report/markdown_report.hpp"
#include "analysis/rules/model/finding.hpp"
#include "core/clock.hpp"
#include "core/printable_text.hpp"

#include <fmt/format.h>

#include <cmath>

namespace shakedown::analysis {
namespace {

constexpr Change listed[] = {Change::worse, Change::better, Change::added, Change::missing};

std::string heading(Change change) {
    switch (change) {
    case Change::worse: return "Worse";
    case Change::better: return "Better";
    case Change::added: return "New (not in OLD)";
    case Change::missing: return "Missing (in OLD, not in NEW)";
    case Change::same: break;
    }
    return "Same";
}

std::string number(const std::optional<double>& value) { return value ? format_number(*value) : "-"; }

std::string signed_number(const std::optional<double>& value) {
    if (!value) return "-";
    return (*value > 0 ? "+" : "") + format_number(*value);
}

std::string ratio_text(const std::optional<double>& ratio) { return ratio ? fmt::format("x{:.3f}", *ratio) : "-"; }

std::string run_line(const RunRecord& run) {
    return fmt::format("{} ({}{}{})", run.run_id, format_utc(run.start_utc), run.verdict.empty() ? "" : ", ", run.verdict);
}

std::string counter_line(const CounterChange& row) {
    return fmt::format("{} {} {}: {} -> {} (+{}{})", row.node, row.device, row.counter, number(row.old_last),
                       format_number(row.new_last), format_number(row.rise),
                       row.old_last && row.new_last < *row.old_last ? "; reset between the runs, rise within NEW" : "");
}

// One line of terminal text: what came from traces (node names, units) made harmless.

std::optional<double> finite(double value) { return std::isfinite(value) ? std::optional(value) : std::nullopt; }

}  // namespace

std::string comparison_text(const RunComparison& comparison) {
    std::string out = fmt::format("compare: OLD {}\n         NEW {}\n", escape_control(run_line(comparison.old_run)),
                                  escape_control(run_line(comparison.new_run)));
    out += fmt::format("{} worse, {} better, {} same (within {:.0f} %), {} new, {} missing; {} counter(s) rose\n",
                       comparison.count(Change::worse), comparison.count(Change::better), comparison.count(Change::same),
                       comparison.tolerance * 100, comparison.count(Change::added), comparison.count(Change::missing),
                       comparison.counters.size());
    for (Change change : listed) {
        if (comparison.count(change) == 0) continue;
        out += "\n" + heading(change) + ":\n";
        for (const MetricChange& row : comparison.metrics) {
            if (row.change != change) continue;
            const std::string unit = row.unit.empty() ? "" : " " + row.unit;
            out +=
                escaped_line(fmt::format("  {} {}: {} -> {}{}  delta {}  {}", where(row), row.metric, number(row.old_value),
                                         number(row.new_value), unit, signed_number(row.delta), ratio_text(row.ratio)));
        }
    }
    if (!comparison.counters.empty()) {
        out += "\nCounters that rose:\n";
        for (const CounterChange& row : comparison.counters) out += escaped_line("  " + counter_line(row));
    }
    return out;
}

std::string comparison_markdown(const RunComparison& comparison) {
    std::string md = fmt::format("## Compare {} with {}\n\n", escape_markdown(comparison.new_run.run_id),
                                 escape_markdown(comparison.old_run.run_id));
    md += fmt::format("- OLD: {}\n- NEW: {}\n- {} worse, {} better, {} same (within {:.0f} %), {} new, {} missing; {} "
                      "counter(s) rose\n",
                      escape_markdown(run_line(comparison.old_run)), escape_markdown(run_line(comparison.new_run)),
                      comparison.count(Change::worse), comparison.count(Change::better), comparison.count(Change::same),
                      comparison.tolerance * 100, comparison.count(Change::added), comparison.count(Change::missing),
                      comparison.counters.size());
    for (Change change : listed) {
        if (comparison.count(change) == 0) continue;
        md += "\n### " + heading(change) +
              "\n\n| where | metric | OLD | NEW | unit | delta | ratio |\n|---|---|---|---|---|---|---|\n";
        for (const MetricChange& row : comparison.metrics)
            if (row.change == change)
                md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", escape_markdown(where(row)),
                                  escape_markdown(row.metric), number(row.old_value), number(row.new_value),
                                  escape_markdown(row.unit), signed_number(row.delta), ratio_text(row.ratio));
    }
    if (!comparison.counters.empty()) {
        md += "\n### Counters that rose\n\n| node | device | counter | OLD end | NEW end | rise "
              "|\n|---|---|---|---|---|---|\n";
        for (const CounterChange& row : comparison.counters)
            md += fmt::format("| {} | {} | {} | {} | {} | +{} |\n", escape_markdown(row.node), escape_markdown(row.device),
                              escape_markdown(row.counter), number(row.old_last), format_number(row.new_last),
                              format_number(row.rise));
    }
    return md;
}

nlohmann::json comparison_json(const RunComparison& comparison) {
    auto run_json = [](const RunRecord& run) {
        return nlohmann::json{{"run_id", run.run_id},
                              {"identity", run.identity},
                              {"start_utc", format_utc(run.start_utc)},
                              {"verdict", run.verdict.empty() ? nlohmann::json() : nlohmann::json(run.verdict)},
                              {"dir", run.run_dir}};
    };
    auto optional_number = [](const std::optional<double>& value) {
        return value && std::isfinite(*value) ? nlohmann::json(*value) : nlohmann::json();
    };
    nlohmann::json metrics = nlohmann::json::array();
    for (const MetricChange& row : comparison.metrics)
        metrics.push_back({{"scope", to_string(row.as)},
                           {"node", row.node.empty() ? nlohmann::json() : nlohmann::json(row.node)},
                           {"local_rank", row.as == ComparedAs::rank ? nlohmann::json(row.local_rank) : nlohmann::json()},
                           {"gpu_uuid", row.as == ComparedAs::gpu ? nlohmann::json(row.gpu_uuid) : nlohmann::json()},
                           {"test", row.test},
                           {"metric", row.metric},
                           {"unit", row.unit},
                           {"better", to_string(row.better)},
                           {"old", optional_number(row.old_value)},
                           {"new", optional_number(row.new_value)},
                           {"delta", optional_number(row.delta)},
                           {"ratio", optional_number(row.ratio)},
                           {"change", to_string(row.change)}});
    nlohmann::json counters = nlohmann::json::array();
    for (const CounterChange& row : comparison.counters)
        counters.push_back({{"node", row.node},
                            {"device", row.device},
                            {"counter", row.counter},
                            {"unit", row.unit},
                            {"old_last", optional_number(row.old_last)},
                            {"new_first", optional_number(finite(row.new_first))},
                            {"new_last", optional_number(finite(row.new_last))},
                            {"rise", row.rise}});
    return {{"old", run_json(comparison.old_run)},
            {"new", run_json(comparison.new_run)},
            {"tolerance", comparison.tolerance},
            {"counts",
             {{"worse", comparison.count(Change::worse)},
              {"better", comparison.count(Change::better)},
              {"same", comparison.count(Change::same)},
              {"new", comparison.count(Change::added)},
              {"missing", comparison.count(Change::missing)},
              {"counters_rose", comparison.counters.size()}}},
            {"metrics", std::move(metrics)},
            {"counters_rose", std::move(counters)}};
}

}  // namespace shakedown::analysis
