#include "analysis/terminal_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

namespace shakedown::analysis {
namespace {

std::string upper(std::string_view text) {
    std::string result(text);
    std::transform(result.begin(), result.end(), result.begin(), [](unsigned char c) { return std::toupper(c); });
    return result;
}


void print_table(std::ostream& out, const Judgement& judgement) {
    const std::vector<std::string> header{"NODE", "RANKS", "VERDICT", "PASSED", "WARNED", "FAILED", "WAIVED", "WORST FINDING"};
    std::vector<std::vector<std::string>> rows;
    for (const NodeVerdict& node : judgement.nodes) {
        const Finding* worst = node.worst_finding();
        std::string worst_text = worst != nullptr ? fmt::format("rank {} {}: {}", worst->rank, worst->test, worst->reason)
                                 : !node.incomplete.empty() ? node.incomplete.front()
                                                            : std::string("-");
        rows.push_back({node.node, compact_rank_list(node.ranks), upper(to_string(node.verdict)),
                        std::to_string(node.tests.passed), std::to_string(node.tests.warned),
                        std::to_string(node.tests.failed), std::to_string(node.tests.waived), std::move(worst_text)});
    }
    std::vector<std::size_t> widths(header.size());
    for (std::size_t column = 0; column < header.size(); ++column) {
        widths[column] = header[column].size();
        for (const auto& row : rows) widths[column] = std::max(widths[column], row[column].size());
    }
    auto print_row = [&](const std::vector<std::string>& row) {
        std::string line;
        for (std::size_t column = 0; column < row.size(); ++column) {
            const bool numeric = column >= 3 && column <= 6;
            const bool last = column + 1 == row.size();
            line += numeric ? fmt::format("{:>{}}", row[column], widths[column])
                            : last ? row[column] : fmt::format("{:<{}}", row[column], widths[column]);
            if (!last) line += "  ";
        }
        out << line << '\n';
    };
    print_row(header);
    for (const auto& row : rows) print_row(row);
}

void print_section(std::ostream& out, const std::string& title, const std::vector<std::string>& lines,
                   std::size_t max_listed) {
    if (lines.empty()) return;
    out << '\n' << title << " (" << lines.size() << "):\n";
    for (std::size_t i = 0; i < lines.size() && i < max_listed; ++i) out << "  " << lines[i] << '\n';
    if (lines.size() > max_listed) out << "  ... and " << lines.size() - max_listed << " more in summary.json\n";
}

// The order findings are worth reading in: localization (it names the culprit), then findings
// the telemetry explains, then the rest as judged.
int priority(const Finding& finding) {
    if (finding.source == FindingSource::links || finding.source == FindingSource::collective) return 0;
    if (finding.telemetry_coincided) return 1;
    return 2;
}

// The top findings at one level: per node at most `per_node` (the most telling first), with what
// the telemetry showed when it showed something; everything is in summary.json.
void print_findings(std::ostream& out, const std::string& title, const Judgement& judgement, Level level,
                    std::size_t max_listed, std::size_t per_node) {
    std::size_t total = 0;
    std::vector<const Finding*> shown;
    for (const NodeVerdict& node : judgement.nodes) {
        std::vector<const Finding*> mine;
        for (const Finding& finding : node.findings)
            if (finding.level == level) mine.push_back(&finding);
        total += mine.size();
        std::stable_sort(mine.begin(), mine.end(), [](const Finding* a, const Finding* b) { return priority(*a) < priority(*b); });
        for (std::size_t i = 0; i < mine.size() && i < per_node; ++i) shown.push_back(mine[i]);
    }
    if (total == 0) return;
    out << '\n' << title << " (" << total << "):\n";
    std::size_t listed = 0;
    for (; listed < shown.size() && listed < max_listed; ++listed) {
        out << "  " << describe_finding(*shown[listed]) << '\n';
        if (shown[listed]->telemetry_coincided) out << "      telemetry: " << shown[listed]->explanation << '\n';
    }
    if (total > listed)
        out << "  ... and " << total - listed << " more in summary.json (at most " << per_node << " per node listed here)\n";
}

std::vector<std::string> localization_lines(const AnalysisResult& result) {
    std::vector<std::string> lines;
    if (!result.links) return lines;
    const LinkLocalization& links = *result.links;
    if (!links.analyzed) {
        lines.push_back("allpairs: not localized: " + links.note);
        return lines;
    }
    lines.push_back(fmt::format("allpairs: {} nodes, {} node pairs, healthy link level {} GB/s (slow below {:.2f} x)",
                                links.nodes.size(), links.links.size(), format_number(links.healthy_gbs),
                                links.slow_fraction));
    for (const SlowNode& node : links.slow_nodes)
        lines.push_back(fmt::format("slow node {}: its {} links median {} GB/s vs {} GB/s elsewhere", node.node, node.links,
                                    format_number(node.median_gbs), format_number(node.others_median_gbs)));
    for (const SlowLink& link : links.slow_links)
        lines.push_back(fmt::format("slow link {}<->{}: {} GB/s vs healthy {} GB/s", link.link.a, link.link.b,
                                    format_number(link.link.bandwidth_gbs), format_number(link.healthy_gbs)));
    for (const SlowGroup& group : links.slow_groups) {
        std::string names;
        for (const std::string& node : group.nodes) names += (names.empty() ? "" : ",") + node;
        lines.push_back(fmt::format("slow {} {}: {} cross links median {} GB/s vs {} GB/s elsewhere",
                                    group.switch_name ? "switch " + *group.switch_name : std::string("group of nodes"),
                                    names, group.cross_links, format_number(group.cross_median_gbs),
                                    format_number(group.inside_median_gbs)));
    }
    if (links.slow_nodes.empty() && links.slow_links.empty() && links.slow_groups.empty())
        lines.push_back("no slow node, link or group");
    return lines;
}

// Waivers repeat on every rank ("no CUDA device" x 1024): one line per test and reason.
std::vector<std::string> waiver_lines(const Judgement& judgement) {
    std::map<std::tuple<std::string, std::string>, std::vector<int>> ranks_by_waiver;
    for (const NodeVerdict& node : judgement.nodes)
        for (const WaivedTest& waived : node.waived) ranks_by_waiver[{waived.test, waived.reason}].push_back(waived.rank);
    std::vector<std::string> lines;
    for (auto& [key, ranks] : ranks_by_waiver) {
        std::sort(ranks.begin(), ranks.end());
        lines.push_back(fmt::format("{}: {} (ranks {})", std::get<0>(key), std::get<1>(key), compact_rank_list(ranks)));
    }
    return lines;
}

std::string verdict_line(const Judgement& judgement) {
    std::map<Verdict, int> nodes_by_verdict;
    for (const NodeVerdict& node : judgement.nodes) ++nodes_by_verdict[node.verdict];
    std::string line = fmt::format("Verdict: {}: {} node(s): {} pass, {} warn, {} fail, {} incomplete",
                                   upper(to_string(judgement.overall)), judgement.nodes.size(),
                                   nodes_by_verdict[Verdict::pass], nodes_by_verdict[Verdict::warn],
                                   nodes_by_verdict[Verdict::fail], nodes_by_verdict[Verdict::incomplete]);
    if (judgement.is_incomplete())
        line += fmt::format("; run incomplete ({} of {} ranks judged)", judgement.ranks_judged, judgement.ranks_expected);
    return line;
}

std::string money(double value, const std::string& currency) {
    const std::string number = value >= 100 ? fmt::format("{:.0f}", value) : fmt::format("{:.3g}", value);
    return currency.empty() ? number : number + " " + currency;
}

}  // namespace

std::string describe_finding(const Finding& finding) {
    const std::string gpu = finding.gpu ? fmt::format(" GPU {}", *finding.gpu) : std::string();
    return fmt::format("{} rank {}{} {}: {}", finding.node, finding.rank, gpu, finding.test, finding.reason);
}

std::vector<std::string> price_lines(const PriceReport& price) {
    std::vector<std::string> lines;
    lines.push_back(fmt::format("node price {} per hour ({} per month)", money(price.node_hour_price, price.currency),
                                money(price.node_hour_price * hours_per_month, price.currency)));
    for (const PriceLine& line : price.fleet) {
        if (!line.usable) {
            lines.push_back(fmt::format("fleet: {}: not measured ({})", line.quantity, line.metric));
            continue;
        }
        std::string text = fmt::format("fleet: {} per usable {} per hour ({} usable", money(*line.per_usable_hour, price.currency),
                                       line.quantity, format_number(*line.usable));
        if (line.per_nominal_hour)
            text += fmt::format(" of {} nominal; {} per nominal {} per hour", format_number(*line.nominal),
                                money(*line.per_nominal_hour, price.currency), line.quantity);
        lines.push_back(text + ")");
    }
    return lines;
}

std::string compact_rank_list(const std::vector<int>& ranks) {
    std::string text;
    for (std::size_t i = 0; i < ranks.size();) {
        std::size_t end = i;
        while (end + 1 < ranks.size() && ranks[end + 1] == ranks[end] + 1) ++end;
        if (!text.empty()) text += ',';
        text += end == i ? std::to_string(ranks[i]) : fmt::format("{}-{}", ranks[i], ranks[end]);
        i = end + 1;
    }
    return text;
}

void print_terminal_report(std::ostream& out, const LoadedRun& run, const AnalysisResult& result,
                           const std::filesystem::path& summary_path, const TerminalReportOptions& options,
                           const std::vector<std::pair<std::string, std::string>>& outputs) {
    const Judgement& judgement = result.judgement;
    if (!options.quiet) {
        const RunManifest& manifest = run.manifest;
        out << fmt::format("Run {}: suite {}, {} rank(s) on {} node(s), status {}\n\n", manifest.run_id,
                           manifest.suite.empty() ? "-" : manifest.suite, manifest.world_size, judgement.nodes.size(),
                           manifest.status);
        print_table(out, judgement);
        print_findings(out, "Failures", judgement, Level::fail, options.max_listed, options.max_per_node);
        print_findings(out, "Warnings", judgement, Level::warn, options.max_listed, options.max_per_node);
        print_section(out, "Localization", localization_lines(result), options.max_listed);
        if (result.baseline)
            print_section(out, "Baseline",
                          {fmt::format("run {}: {} values compared, {} regressions beyond {:.0f} %, {} improvements, "
                                       "{} baseline values not in this run",
                                       result.baseline->baseline_run_id, result.baseline->compared,
                                       result.baseline->regressions, result.baseline->tolerance * 100,
                                       result.baseline->improvements, result.baseline->missing)},
                          options.max_listed);
        if (result.price) print_section(out, "Price", price_lines(*result.price), options.max_listed);
        print_section(out, "Waived", waiver_lines(judgement), options.max_listed);
        print_section(out, "Incomplete run", judgement.incomplete, options.max_listed);
        out << '\n';
    }
    out << verdict_line(judgement) << '\n';
    out << "Run folder: " << run.dir.string() << '\n';
    if (!summary_path.empty()) out << "Summary: " << summary_path.string() << '\n';
    if (!options.quiet)
        for (const auto& [what, path] : outputs) out << what << ": " << path << '\n';
}

}  // namespace shakedown::analysis
