#include "analysis/report/junit_report.hpp"

#include "analysis/report/markup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

namespace shakedown::analysis {
namespace {

std::string finding_text(const Finding& finding) {
    std::string text = describe_finding(finding);
    if (!finding.explanation.empty()) text += "\n    telemetry: " + finding.explanation;
    return text;
}

std::string findings_text(const std::vector<const Finding*>& findings, const char* prefix = "") {
    std::string text;
    for (const Finding* finding : findings) text += prefix + finding_text(*finding) + "\n";
    return text;
}

struct CaseCounts {
    int tests = 0;
    int failures = 0;
    int errors = 0;
    int skipped = 0;
    double seconds = 0.0;
};

// A testcase with both a hardware failure and an error to fix counts in both.
CaseCounts count_cases(const NodeReport& node) {
    CaseCounts counts;
    const bool incomplete = !node.verdict->incomplete.empty();
    counts.tests = static_cast<int>(node.cases.size()) + (incomplete ? 1 : 0);
    counts.errors = incomplete ? 1 : 0;
    for (const TestCaseRow& row : node.cases) {
        if (!row.failures.empty()) ++counts.failures;
        if (!row.errors.empty()) ++counts.errors;
        if (row.failures.empty() && row.errors.empty() && row.all_waived()) ++counts.skipped;
        counts.seconds += row.seconds;
    }
    return counts;
}

// Ant's JUnit timestamp (ISO 8601 to the second, no zone), in UTC; "" for no time known.
std::string ant_timestamp(double seconds_since_epoch) {
    if (!(seconds_since_epoch > 0.0)) return "";
    const std::time_t whole = static_cast<std::time_t>(seconds_since_epoch);
    std::tm utc{};
    gmtime_r(&whole, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
    return text;
}

// When the node's first rank started (its trace header), else when the run started.
double node_start(const LoadedRun& run, const NodeVerdict& node) {
    double start = 0.0;
    for (const int rank : node.ranks) {  // run.ranks is indexed by rank
        if (rank < 0 || static_cast<std::size_t>(rank) >= run.ranks.size()) continue;
        const RankRecord& record = run.ranks[static_cast<std::size_t>(rank)];
        if (record.trace && record.trace->header.start_utc > 0.0)
            start = start > 0.0 ? std::min(start, record.trace->header.start_utc) : record.trace->header.start_utc;
    }
    return start > 0.0 ? start : run.manifest.start_utc;
}

std::string text_or_empty(const nlohmann::json& object, const char* key) {
    if (!object.is_object() || !object.contains(key) || !object[key].is_string()) return "";
    return object[key].get<std::string>();
}

// What a CI system shows beside the results: which run, which build, which job, which verdict.
void write_properties(XmlWriter& xml, const LoadedRun& run, const NodeReport& node) {
    const RunManifest& manifest = run.manifest;
    std::vector<std::pair<std::string, std::string>> properties{
        {"run_id", manifest.run_id},
        {"run_uuid", manifest.run_uuid},
        {"suite", manifest.suite},
        {"run_status", manifest.status},
        {"shakedown_version", manifest.shakedown_version},
        {"analyzer_version", SHAKEDOWN_VERSION},
        {"slurm_job_id", text_or_empty(manifest.slurm, "job_id")},
        {"node_verdict", std::string(to_string(node.verdict->verdict))},
        {"ranks", node.ranks},
    };
    xml.open("properties");
    for (const auto& [name, value] : properties)
        if (!value.empty()) xml.element("property", {{"name", name}, {"value", value}});
    xml.close();
}

}  // namespace

std::string junit_xml(const ReportModel& model) {
    CaseCounts total;
    for (const NodeReport& node : model.nodes) {
        const CaseCounts counts = count_cases(node);
        total.tests += counts.tests;
        total.failures += counts.failures;
        total.errors += counts.errors;
    }
    const RunManifest& manifest = model.run->manifest;
    XmlWriter xml;
    // junit-10.xsd (xunit, Jenkins) allows no `skipped` here: skipped cases are counted per suite.
    Attributes suites{{"name", model.title},
                                 {"tests", std::to_string(total.tests)},
                                 {"failures", std::to_string(total.failures)},
                                 {"errors", std::to_string(total.errors)}};
    if (manifest.end_utc && *manifest.end_utc >= manifest.start_utc && manifest.start_utc > 0.0)
        suites.emplace_back("time", fmt::format("{:.3f}", *manifest.end_utc - manifest.start_utc));
    xml.open("testsuites", suites);
    for (const NodeReport& node : model.nodes) {
        const NodeVerdict& verdict = *node.verdict;
        const CaseCounts counts = count_cases(node);
        Attributes suite{{"name", verdict.node},
                                    {"tests", std::to_string(counts.tests)},
                                    {"failures", std::to_string(counts.failures)},
                                    {"errors", std::to_string(counts.errors)},
                                    {"skipped", std::to_string(counts.skipped)},
                                    {"time", fmt::format("{:.3f}", counts.seconds)},
                                    {"hostname", verdict.node}};
        if (const std::string stamp = ant_timestamp(node_start(*model.run, verdict)); !stamp.empty())
            suite.emplace_back("timestamp", stamp);
        xml.open("testsuite", suite);
        write_properties(xml, *model.run, node);
        for (const TestCaseRow& row : node.cases) {
            xml.open("testcase", {{"classname", "shakedown." + verdict.node},
                                  {"name", row.test},
                                  {"time", fmt::format("{:.3f}", row.seconds)}});
            // <failure>: the hardware's (its type the reason code); <error>: configuration or
            // software to fix (its type the cause class), never counted against the node.
            if (!row.failures.empty())
                xml.element("failure", {{"message", row.failures.front()->reason},
                                        {"type", std::string(to_string(row.failures.front()->code))}},
                            findings_text(row.failures));
            if (!row.errors.empty())
                xml.element("error", {{"message", row.errors.front()->reason},
                                      {"type", std::string(to_string(row.errors.front()->cause))}},
                            findings_text(row.errors));
            if (row.failures.empty() && row.errors.empty() && row.all_waived())
                xml.element("skipped", {{"message", row.waiver}});
            if (!row.warnings.empty()) xml.element("system-out", {}, findings_text(row.warnings, "WARN "));
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
