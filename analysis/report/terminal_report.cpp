#include "analysis/report/terminal_report.hpp"

#include "analysis/report/markup.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace shakedown::analysis {
namespace {

// Every string printed here may come from a file (node names, reasons, run ids, paths): each goes
// through escape_control, so none can move the cursor or print a line of its own.

// Columns as wide as their widest cell, the numeric ones right-aligned, the last one as it is.
void print_columns(std::ostream& out, const std::vector<std::string>& header,
                   const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& numeric) {
    std::vector<std::size_t> widths(header.size());
    for (std::size_t column = 0; column < header.size(); ++column) {
        widths[column] = header[column].size();
        for (const auto& row : rows) widths[column] = std::max(widths[column], row[column].size());
    }
    auto print_row = [&](const std::vector<std::string>& row) {
        std::string line;
        for (std::size_t column = 0; column < row.size(); ++column) {
            const bool last = column + 1 == row.size();
            line += numeric[column] ? fmt::format("{:>{}}", row[column], widths[column])
                    : last          ? row[column]
                                    : fmt::format("{:<{}}", row[column], widths[column]);
            if (!last) line += "  ";
        }
        out << line << '\n';
    };
    print_row(header);
    for (const auto& row : rows) print_row(row);
}

// A slow link is no GPU: its own rows, after the nodes'.
void print_link_table(std::ostream& out, const ReportModel& model) {
    if (model.links.empty()) return;
    std::vector<std::vector<std::string>> rows;
    for (const LinkRow& link : model.links)
        rows.push_back({escape_control(link.link), escape_control(link.matrix), upper(to_string(link.verdict)),
                        fmt::format("{:.3g}", link.gbs), fmt::format("{:.2f}", link.ratio),
                        std::string(to_string(link.confirmation)), escape_control(link.reason)});
    out << '\n';
    print_columns(out, {"LINK", "MATRIX", "VERDICT", "GB/S", "OF REF", "CONFIRMATION", "FINDING"}, rows,
                  {false, false, false, true, true, false, false});
}

void print_table(std::ostream& out, const ReportModel& model) {
    const std::vector<std::string> header{"NODE",   "RANKS",  "VERDICT", "PASSED",       "WARNED",
                                          "FAILED", "TO FIX", "WAIVED",  "WORST FINDING"};
    std::vector<std::vector<std::string>> rows;
    for (const NodeReport& node : model.nodes) {
        const NodeVerdict& verdict = *node.verdict;
        rows.push_back({escape_control(verdict.node), node.ranks, upper(to_string(verdict.verdict)),
                        std::to_string(verdict.tests.passed), std::to_string(verdict.tests.warned),
                        std::to_string(verdict.tests.failed), std::to_string(verdict.tests.errored),
                        std::to_string(verdict.tests.waived), escape_control(node.worst_with_rank)});
        // A node that is not a PASS shows each of its GPUs: which one is bad, which are fine.
        if (verdict.verdict == Verdict::pass) continue;
        for (const DeviceRow& device : node.devices)
            rows.push_back({fmt::format("  GPU {}", device.gpu), std::to_string(device.rank),
                            upper(to_string(device.verdict)), "", "", "", "", "", escape_control(device.worst)});
    }
    print_columns(out, header, rows, {false, false, false, true, true, true, true, true, false});
    print_link_table(out, model);
}

void print_section(std::ostream& out, const std::string& title, const std::vector<std::string>& lines,
                   std::size_t max_listed) {
    if (lines.empty()) return;
    out << '\n' << title << " (" << lines.size() << "):\n";
    for (std::size_t i = 0; i < lines.size() && i < max_listed; ++i) out << "  " << escape_control(lines[i]) << '\n';
    if (lines.size() > max_listed) out << "  ... and " << lines.size() - max_listed << " more in summary.json\n";
}

// The top hardware findings at one level: per node at most `per_node` (the model holds them most
// telling first), with what the telemetry showed when it showed something; everything is in
// summary.json.
void print_findings(std::ostream& out, const std::string& title, const ReportModel& model, Level level,
                    std::size_t max_listed, std::size_t per_node) {
    std::size_t total = 0;
    std::vector<const Finding*> shown;
    for (const NodeReport& node : model.nodes) {
        std::size_t mine = 0;
        for (const Finding* finding : node.findings) {
            if (finding->level != level || (level == Level::fail && finding->cause != Cause::hardware)) continue;
            if (mine++ < per_node) shown.push_back(finding);
        }
        total += mine;
    }
    if (total == 0) return;
    out << '\n' << title << " (" << total << "):\n";
    std::size_t listed = 0;
    for (; listed < shown.size() && listed < max_listed; ++listed) {
        out << "  " << escape_control(describe_finding(*shown[listed])) << '\n';
        if (shown[listed]->telemetry_coincided) out << "      telemetry: " << escape_control(shown[listed]->explanation) << '\n';
    }
    if (total > listed)
        out << "  ... and " << total - listed << " more in summary.json (at most " << per_node << " per node listed here)\n";
}

}  // namespace

void print_terminal_report(std::ostream& out, const ReportModel& model, const std::filesystem::path& summary_path,
                           const TerminalReportOptions& options,
                           const std::vector<std::pair<std::string, std::string>>& outputs) {
    if (!options.quiet) {
        out << "Run " << escape_control(model.run->manifest.run_id) << ": " << escape_control(model.overview) << "\n\n";
        print_table(out, model);
        print_section(out, "To fix before the hardware can be judged (not drained)", model.fix_lines, options.max_listed);
        print_findings(out, "Failures", model, Level::fail, options.max_listed, options.max_per_node);
        print_findings(out, "Warnings", model, Level::warn, options.max_listed, options.max_per_node);
        print_section(out, "Localization", model.localization_lines, options.max_listed);
        print_section(out, "Hidden faults", model.hidden_fault_lines, options.max_listed);
        print_section(out, "Confirm before drain", model.confirmation_lines, options.max_listed);
        print_section(out, "Baseline", model.baseline_lines, options.max_listed);
        print_section(out, "Workload", model.workload_lines, options.max_listed);
        print_section(out, "Energy", model.energy_lines, options.max_listed);
        print_section(out, "FP64 capability", model.fp64_lines, options.max_listed);
        print_section(out, "Price", model.price_lines, options.max_listed);
        print_section(out, "Waived", model.waiver_lines, options.max_listed);
        print_section(out, "Incomplete run", model.incomplete_lines, options.max_listed);
        out << '\n';
    }
    out << escape_control(model.verdict_line) << '\n';
    out << "Run folder: " << escape_control(model.run->dir.string()) << '\n';
    if (!summary_path.empty()) out << "Summary: " << escape_control(summary_path.string()) << '\n';
    if (!options.quiet)
        for (const auto& [what, path] : outputs) out << what << ": " << escape_control(path) << '\n';
}

}  // namespace shakedown::analysis
