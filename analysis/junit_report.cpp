#include "analysis/junit_report.hpp"

#include "analysis/markup.hpp"
#include "analysis/terminal_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace shakedown::analysis {
namespace {

struct TestCase {
    std::vector<const Finding*> failures;
    std::vector<const Finding*> warnings;
    int ranks = 0;         // ranks with a result (any status)
    int waived_ranks = 0;
    std::string waiver;
    double seconds = 0.0;  // the longest rank's duration
};

std::string finding_text(const Finding& finding) {
    std::string text = describe_finding(finding);
    if (!finding.explanation.empty()) text += "\n    telemetry: " + finding.explanation;
    return text;
}

}  // namespace

std::string junit_xml(const LoadedRun& run, const AnalysisResult& result) {
    const Judgement& judgement = result.judgement;
    std::map<std::string, std::vector<std::string>> test_order;  // per node, first appearance
    std::map<std::string, std::map<std::string, TestCase>> cases;
    auto case_for = [&](const std::string& node, const std::string& test) -> TestCase& {
        auto& order = test_order[node];
        if (std::find(order.begin(), order.end(), test) == order.end()) order.push_back(test);
        return cases[node][test];
    };
    for (const RankRecord& record : run.ranks) {
        if (!record.trace) continue;
        for (const TestResult& test : record.trace->tests) {
            TestCase& entry = case_for(record.node, test.key);
            ++entry.ranks;
            entry.seconds = std::max(entry.seconds, std::max(0.0, test.end_utc - test.start_utc));
            if (test.status == Status::waived) {
                ++entry.waived_ranks;
                entry.waiver = test.reason;
            }
        }
    }
    for (const NodeVerdict& node : judgement.nodes)
        for (const Finding& finding : node.findings) {
            TestCase& entry = case_for(node.node, finding.test);
            (finding.level == Level::fail ? entry.failures : entry.warnings).push_back(&finding);
        }

    int total_tests = 0;
    int total_failures = 0;
    int total_errors = 0;
    int total_skipped = 0;
    for (const NodeVerdict& node : judgement.nodes) {
        total_tests += static_cast<int>(test_order[node.node].size()) + (node.incomplete.empty() ? 0 : 1);
        total_errors += node.incomplete.empty() ? 0 : 1;
        for (const auto& [key, entry] : cases[node.node]) {
            if (!entry.failures.empty()) ++total_failures;
            else if (entry.ranks > 0 && entry.waived_ranks == entry.ranks) ++total_skipped;
        }
    }

    XmlWriter xml;
    xml.open("testsuites", {{"name", fmt::format("shakedown run {}", run.manifest.run_id)},
                            {"tests", std::to_string(total_tests)},
                            {"failures", std::to_string(total_failures)},
                            {"errors", std::to_string(total_errors)},
                            {"skipped", std::to_string(total_skipped)}});
    for (const NodeVerdict& node : judgement.nodes) {
        const auto& order = test_order[node.node];
        int failures = 0;
        int skipped = 0;
        for (const std::string& test : order) {
            const TestCase& entry = cases[node.node][test];
            if (!entry.failures.empty()) ++failures;
            else if (entry.ranks > 0 && entry.waived_ranks == entry.ranks) ++skipped;
        }
        xml.open("testsuite", {{"name", node.node},
                               {"tests", std::to_string(order.size() + (node.incomplete.empty() ? 0 : 1))},
                               {"failures", std::to_string(failures)},
                               {"errors", node.incomplete.empty() ? "0" : "1"},
                               {"skipped", std::to_string(skipped)}});
        for (const std::string& test : order) {
            const TestCase& entry = cases[node.node][test];
            xml.open("testcase", {{"classname", "shakedown." + node.node},
                                  {"name", test},
                                  {"time", fmt::format("{:.3f}", entry.seconds)}});
            if (!entry.failures.empty()) {
                std::string text;
                for (const Finding* finding : entry.failures) text += finding_text(*finding) + "\n";
                xml.element("failure", {{"message", entry.failures.front()->reason}, {"type", "fail"}}, text);
            } else if (entry.ranks > 0 && entry.waived_ranks == entry.ranks) {
                xml.element("skipped", {{"message", entry.waiver}});
            }
            if (!entry.warnings.empty()) {
                std::string text;
                for (const Finding* finding : entry.warnings) text += "WARN " + finding_text(*finding) + "\n";
                xml.element("system-out", {}, text);
            }
            xml.close();
        }
        if (!node.incomplete.empty()) {
            xml.open("testcase", {{"classname", "shakedown." + node.node}, {"name", "run completeness"}, {"time", "0"}});
            std::string text;
            for (const std::string& line : node.incomplete) text += line + "\n";
            xml.element("error", {{"message", node.incomplete.front()}, {"type", "incomplete"}}, text);
            xml.close();
        }
        xml.close();
    }
    return xml.finish();
}

}  // namespace shakedown::analysis
