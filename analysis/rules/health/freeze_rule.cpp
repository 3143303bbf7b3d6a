#include "analysis/rules/health/freeze_rule.hpp"

#include "core/driver_result_names.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>
#include <string>

namespace shakedown::analysis {
namespace {

std::optional<double> recorded_seconds(const TestResult& test, std::string_view name) {
    const auto found = test.parameters.find(std::string(name));
    if (found == test.parameters.end()) return std::nullopt;
    try {
        const double value = std::stod(found->second);
        return std::isfinite(value) && value > 0.0 ? std::optional(value) : std::nullopt;
    } catch (const std::exception&) {
        return std::nullopt;  // not a number: nothing to report (the trace's other figures stand)
    }
}

}  // namespace

std::vector<Finding> freeze_findings(const Observations& observations) {
    std::vector<Finding> findings;
    std::map<std::string, std::set<std::string>> tests_frozen_on_node;
    for (const TestRow& row : observations.tests()) {
        const auto seconds = recorded_seconds(*row.test, driver_names::frozen_s);
        if (!seconds) continue;
        tests_frozen_on_node[row.who->node].insert(row.test->key);
        const auto stretches = row.test->parameters.find(std::string(driver_names::freezes));
        const double took = row.test->end_utc - row.test->start_utc;
        Finding finding = make_finding(
            *row.who, row.test->key, Level::warn,
            fmt::format("rank {} ({}) stood still for {:.1f} s in {}{}: the whole process did not run (SIGSTOP, a paused "
                        "VM, the node swapping){}",
                        row.who->rank, row.who->node, *seconds, row.test->key,
                        stretches != row.test->parameters.end() && stretches->second != "1"
                            ? fmt::format(" ({} stretches)", stretches->second)
                            : std::string(),
                        took > 0.0 ? fmt::format("; the test took {:.1f} s", took) : std::string()),
            FindingSource::stall);
        finding.code = ReasonCode::rank_froze;
        finding.value = *seconds;
        finding.unit = "s";
        findings.push_back(std::move(finding));
    }
    // Again in another test: not a one-off pause.
    for (Finding& finding : findings) {
        const auto& tests = tests_frozen_on_node[finding.node];
        if (tests.size() < 2) continue;
        finding.level = Level::fail;
        finding.reason += fmt::format("; {} stood still in {} tests of this run", finding.node, tests.size());
    }
    return findings;
}

}  // namespace shakedown::analysis
