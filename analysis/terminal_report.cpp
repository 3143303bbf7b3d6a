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

std::string describe(const Finding& finding) {
    return fmt::format("{} rank {} {}: {}", finding.node, finding.rank, finding.test, finding.reason);
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

std::vector<std::string> findings_at(const Judgement& judgement, Level level) {
    std::vector<std::string> lines;
    for (const NodeVerdict& node : judgement.nodes)
        for (const Finding& finding : node.findings)
            if (finding.level == level) lines.push_back(describe(finding));
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

}  // namespace

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

void print_terminal_report(std::ostream& out, const LoadedRun& run, const Judgement& judgement,
                           const std::filesystem::path& summary_path, const TerminalReportOptions& options) {
    if (!options.quiet) {
        const RunManifest& manifest = run.manifest;
        out << fmt::format("Run {}: suite {}, {} rank(s) on {} node(s), status {}\n\n", manifest.run_id,
                           manifest.suite.empty() ? "-" : manifest.suite, manifest.world_size, judgement.nodes.size(),
                           manifest.status);
        print_table(out, judgement);
        print_section(out, "Failures", findings_at(judgement, Level::fail), options.max_listed);
        print_section(out, "Warnings", findings_at(judgement, Level::warn), options.max_listed);
        print_section(out, "Waived", waiver_lines(judgement), options.max_listed);
        print_section(out, "Incomplete run", judgement.incomplete, options.max_listed);
        out << '\n';
    }
    out << verdict_line(judgement) << '\n';
    out << "Run folder: " << run.dir.string() << '\n';
    if (!summary_path.empty()) out << "Summary: " << summary_path.string() << '\n';
}

}  // namespace shakedown::analysis
