#include "analysis/markdown_report.hpp"

#include "analysis/terminal_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace shakedown::analysis {
namespace {

std::string upper(std::string_view text) {
    std::string result(text);
    std::transform(result.begin(), result.end(), result.begin(), [](unsigned char c) { return std::toupper(c); });
    return result;
}

}  // namespace

std::string escape_markdown(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '\n' || c == '\r') out += ' ';
        else if (std::string_view("|`*_[]<>\\#").find(c) != std::string_view::npos) out += std::string("\\") + c;
        else out += c;
    }
    return out;
}

std::string markdown_report(const LoadedRun& run, const AnalysisResult& result, std::size_t max_findings) {
    const Judgement& judgement = result.judgement;
    std::string md = fmt::format("## shakedown run {}: {}\n\n", escape_markdown(run.manifest.run_id),
                                 upper(to_string(judgement.overall)));
    std::map<Verdict, int> by_verdict;
    for (const NodeVerdict& node : judgement.nodes) ++by_verdict[node.verdict];
    md += fmt::format("Suite {}, {} rank(s) on {} node(s): {} pass, {} warn, {} fail, {} incomplete.\n\n",
                      escape_markdown(run.manifest.suite.empty() ? "-" : run.manifest.suite), run.manifest.world_size,
                      judgement.nodes.size(), by_verdict[Verdict::pass], by_verdict[Verdict::warn],
                      by_verdict[Verdict::fail], by_verdict[Verdict::incomplete]);
    md += "| node | ranks | verdict | passed | warned | failed | waived | worst finding |\n";
    md += "|---|---|---|---:|---:|---:|---:|---|\n";
    for (const NodeVerdict& node : judgement.nodes) {
        const Finding* worst = node.worst_finding();
        const std::string worst_text = worst != nullptr ? worst->reason : !node.incomplete.empty() ? node.incomplete.front() : "-";
        md += fmt::format("| {} | {} | **{}** | {} | {} | {} | {} | {} |\n", escape_markdown(node.node),
                          compact_rank_list(node.ranks), upper(to_string(node.verdict)), node.tests.passed,
                          node.tests.warned, node.tests.failed, node.tests.waived, escape_markdown(worst_text));
    }
    std::vector<const Finding*> findings;
    for (const NodeVerdict& node : judgement.nodes)
        for (const Finding& finding : node.findings) findings.push_back(&finding);
    std::stable_sort(findings.begin(), findings.end(), [](const Finding* a, const Finding* b) { return a->level > b->level; });
    md += fmt::format("\n### Findings ({})\n\n", findings.size());
    if (findings.empty()) md += "None.\n";
    for (std::size_t i = 0; i < findings.size() && i < max_findings; ++i) {
        md += fmt::format("- **{}** {}\n", upper(to_string(findings[i]->level)), escape_markdown(describe_finding(*findings[i])));
        if (!findings[i]->explanation.empty()) md += fmt::format("  - telemetry: {}\n", escape_markdown(findings[i]->explanation));
    }
    if (findings.size() > max_findings) md += fmt::format("- ... and {} more in summary.json\n", findings.size() - max_findings);
    if (!judgement.incomplete.empty()) {
        md += "\n### Incomplete run\n\n";
        for (const std::string& line : judgement.incomplete) md += "- " + escape_markdown(line) + "\n";
    }
    if (result.links && result.links->analyzed) {
        md += "\n### Links\n\n";
        std::set<std::string> said;
        for (const NodeVerdict& node : judgement.nodes)
            for (const Finding& finding : node.findings)
                if (finding.source == FindingSource::links && said.insert(finding.reason).second)
                    md += "- " + escape_markdown(finding.reason) + "\n";
        if (said.empty())
            md += fmt::format("- no slow node, link or group ({} node pairs, healthy level {} GB/s)\n",
                              result.links->links.size(), format_number(result.links->healthy_gbs));
    }
    if (result.price) {
        md += "\n### Price\n\n";
        for (const std::string& line : price_lines(*result.price)) md += "- " + escape_markdown(line) + "\n";
    }
    return md;
}

}  // namespace shakedown::analysis
