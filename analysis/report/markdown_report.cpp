#include "analysis/report/markdown_report.hpp"

#include "analysis/report/markup.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace shakedown::analysis {
namespace {

void list_section(std::string& md, const std::string& title, const std::vector<std::string>& lines) {
    if (lines.empty()) return;
    md += "\n### " + title + "\n\n";
    for (const std::string& line : lines) md += "- " + escape_markdown(line) + "\n";
}

}  // namespace

std::string escape_markdown(std::string_view text) {
    std::string flat(text);
    std::replace_if(flat.begin(), flat.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
    std::string out;
    for (char c : escape_control(flat)) {
        if (std::string_view("|`*_[]<>\\#").find(c) != std::string_view::npos) out += std::string("\\") + c;
        else out += c;
    }
    return out;
}

namespace {

// Per device, as scientific buyers compare nodes: native, LU, CG and emulated FP64 side by side.
void fp64_section(std::string& md, const ReportModel& model) {
    if (model.fp64_table.rows.empty() && model.fp64_lines.empty()) return;
    md += "\n### FP64 capability\n\n";
    if (!model.fp64_table.rows.empty()) {
        md += "|";
        for (const std::string& title : model.fp64_table.header) md += " " + title + " |";
        md += "\n|";
        for (std::size_t i = 0; i < model.fp64_table.header.size(); ++i) md += "---|";
        md += "\n";
        for (const auto& row : model.fp64_table.rows) {
            md += "|";
            for (const std::string& text : row) md += " " + escape_markdown(text) + " |";
            md += "\n";
        }
        md += "\n";
    }
    for (const std::string& line : model.fp64_lines) md += "- " + escape_markdown(line) + "\n";
}

}  // namespace

std::string markdown_report(const ReportModel& model, std::size_t max_findings) {
    const Judgement& judgement = model.result->judgement;
    std::string md = fmt::format("## {}: {}\n\n", escape_markdown(model.title), upper(to_string(judgement.overall)));
    md += escape_markdown(model.verdict_line) + "\n\n" + escape_markdown(model.overview) + "\n\n";
    md += "| node | ranks | verdict | passed | warned | failed | to fix | waived | worst finding |\n";
    md += "|---|---|---|---:|---:|---:|---:|---:|---|\n";
    for (const NodeReport& node : model.nodes) {
        const NodeVerdict& verdict = *node.verdict;
        md += fmt::format("| {} | {} | **{}** | {} | {} | {} | {} | {} | {} |\n", escape_markdown(verdict.node), node.ranks,
                          upper(to_string(verdict.verdict)), verdict.tests.passed, verdict.tests.warned,
                          verdict.tests.failed, verdict.tests.errored, verdict.tests.waived, escape_markdown(node.worst));
        if (verdict.verdict == Verdict::pass) continue;
        for (const DeviceRow& device : node.devices)
            md += fmt::format("| &nbsp;&nbsp;GPU {} | {} | {} | | | | | | {} |\n", device.gpu, device.rank,
                              upper(to_string(device.verdict)), escape_markdown(device.worst));
    }
    list_section(md, "To fix before the hardware can be judged (not drained)", model.fix_lines);
    std::vector<const Finding*> findings = model.failures;
    findings.insert(findings.end(), model.warnings.begin(), model.warnings.end());
    md += fmt::format("\n### Findings ({})\n\n", findings.size());
    if (findings.empty()) md += "None.\n";
    for (std::size_t i = 0; i < findings.size() && i < max_findings; ++i) {
        md += fmt::format("- **{}** {}\n", upper(to_string(findings[i]->level)), escape_markdown(describe_finding(*findings[i])));
        if (!findings[i]->explanation.empty()) md += fmt::format("  - telemetry: {}\n", escape_markdown(findings[i]->explanation));
    }
    if (findings.size() > max_findings) md += fmt::format("- ... and {} more in summary.json\n", findings.size() - max_findings);
    list_section(md, "Incomplete run", model.incomplete_lines);
    list_section(md, "Links", model.localization_lines);
    list_section(md, "Hidden faults", model.hidden_fault_lines);
    list_section(md, "Confirm before drain", model.confirmation_lines);
    if (model.baseline_line) list_section(md, "Baseline", {*model.baseline_line});
    fp64_section(md, model);
    list_section(md, "Price", model.price_lines);
    list_section(md, "Waived", model.waiver_lines);
    return md;
}

}  // namespace shakedown::analysis
