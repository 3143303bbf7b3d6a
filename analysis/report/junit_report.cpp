#include "analysis/report/junit_report.hpp"

#include "analysis/report/markup.hpp"

#include <fmt/format.h>

namespace shakedown::analysis {
namespace {

std::string finding_text(const Finding& finding) {
    std::string text = describe_finding(finding);
    if (!finding.explanation.empty()) text += "\n    telemetry: " + finding.explanation;
    return text;
}

struct CaseCounts {
    int tests = 0;
    int failures = 0;
    int errors = 0;
    int skipped = 0;
};

CaseCounts count_cases(const NodeReport& node) {
    CaseCounts counts;
    const bool incomplete = !node.verdict->incomplete.empty();
    counts.tests = static_cast<int>(node.cases.size()) + (incomplete ? 1 : 0);
    counts.errors = incomplete ? 1 : 0;
    for (const TestCaseRow& row : node.cases) {
        if (!row.failures.empty()) ++counts.failures;
        else if (!row.errors.empty()) ++counts.errors;
        else if (row.all_waived()) ++counts.skipped;
    }
    return counts;
}

}  // namespace

std::string junit_xml(const ReportModel& model) {
    CaseCounts total;
    for (const NodeReport& node : model.nodes) {
        const CaseCounts counts = count_cases(node);
        total.tests += counts.tests;
        total.failures += counts.failures;
        total.errors += counts.errors;
        total.skipped += counts.skipped;
    }
    XmlWriter xml;
    xml.open("testsuites", {{"name", model.title},
                            {"tests", std::to_string(total.tests)},
                            {"failures", std::to_string(total.failures)},
                            {"errors", std::to_string(total.errors)},
                            {"skipped", std::to_string(total.skipped)}});
    for (const NodeReport& node : model.nodes) {
        const NodeVerdict& verdict = *node.verdict;
        const CaseCounts counts = count_cases(node);
        xml.open("testsuite", {{"name", verdict.node},
                               {"tests", std::to_string(counts.tests)},
                               {"failures", std::to_string(counts.failures)},
                               {"errors", std::to_string(counts.errors)},
                               {"skipped", std::to_string(counts.skipped)}});
        for (const TestCaseRow& row : node.cases) {
            xml.open("testcase", {{"classname", "shakedown." + verdict.node},
                                  {"name", row.test},
                                  {"time", fmt::format("{:.3f}", row.seconds)}});
            if (!row.failures.empty()) {
                std::string text;
                for (const Finding* finding : row.failures) text += finding_text(*finding) + "\n";
                xml.element("failure", {{"message", row.failures.front()->reason}, {"type", "fail"}}, text);
            } else if (!row.errors.empty()) {  // configuration or software: not a failure of the node
                std::string text;
                for (const Finding* finding : row.errors) text += finding_text(*finding) + "\n";
                xml.element("error", {{"message", row.errors.front()->reason},
                                      {"type", std::string(to_string(row.errors.front()->cause))}}, text);
            } else if (row.all_waived()) {
                xml.element("skipped", {{"message", row.waiver}});
            }
            if (!row.warnings.empty()) {
                std::string text;
                for (const Finding* finding : row.warnings) text += "WARN " + finding_text(*finding) + "\n";
                xml.element("system-out", {}, text);
            }
            xml.close();
        }
        if (!verdict.incomplete.empty()) {
            xml.open("testcase", {{"classname", "shakedown." + verdict.node}, {"name", "run completeness"}, {"time", "0"}});
            std::string text;
            for (const std::string& line : verdict.incomplete) text += line + "\n";
            xml.element("error", {{"message", verdict.incomplete.front()}, {"type", "incomplete"}}, text);
            xml.close();
        }
        xml.close();
    }
    return xml.finish();
}

}  // namespace shakedown::analysis
