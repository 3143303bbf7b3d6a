#include "analysis/rules/figures/profile_rule.hpp"

#include "core/registry.hpp"
#include "core/waiver_reasons.hpp"
#include "placement/placement_names.hpp"
#include "profile/node_check.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

namespace shakedown::analysis {
namespace {

Finding node_finding(const RankIdentity& who, const std::string& test, std::string reason, Cause cause) {
    Finding finding = make_finding(who, test, Level::fail, std::move(reason));
    finding.cause = cause;
    finding.code = ReasonCode::profile_mismatch;
    return finding;
}

// A test that measures the node's GPUs: it needs CUDA, or some rank ran it on a GPU.
bool measures_gpus(const std::string& key, const std::vector<const TestRow*>& rows) {
    if (const Test* test = Registry::instance().find(key)) {
        const auto& needs = test->spec().needs;
        if (std::find(needs.begin(), needs.end(), Feature::cuda) != needs.end()) return true;
    }
    return std::any_of(rows.begin(), rows.end(),
                       [](const TestRow* row) { return ran_on(*row->test) == placement::names::ran_on_gpu; });
}

// Why a waiver left the test unrun: the device is missing (hardware), or the build or the launch
// left it out (configuration).
Cause cause_of_waiver(const std::string& reason) {
    if (reason.find("no CUDA device") != std::string::npos || reason.find("no RDMA device") != std::string::npos)
        return Cause::hardware;
    return Cause::configuration;
}

void check_expected_tests(const Observations& observations, const NodeRow& node, const profile::NodeClass& expected,
                          const profile::NodeFacts& facts, const RankIdentity& leader, std::vector<Finding>& findings) {
    const auto& listed = observations.run().manifest.tests;
    // The class's tests, and on a class with GPUs every GPU test the run selected: a GPU node
    // whose GPU tests all waived "no CUDA device" has not shown its GPUs.
    std::vector<std::string> keys = expected.tests;
    if (expected.gpus_per_node.value_or(0) > 0)
        for (const std::string& key : listed)
            if (const Test* test = Registry::instance().find(key)) {
                const auto& needs = test->spec().needs;
                if (std::find(needs.begin(), needs.end(), Feature::cuda) != needs.end() &&
                    std::find(keys.begin(), keys.end(), key) == keys.end())
                    keys.push_back(key);
            }
    for (const std::string& key : keys) {
        std::vector<const TestRow*> rows;
        for (const TestRow* row : observations.tests_on(node.name))
            if (row->test->key == key) rows.push_back(row);
        if (rows.empty()) {
            const bool selected = std::find(listed.begin(), listed.end(), key) != listed.end();
            if (!selected)  // the run left it out: the operator's to fix, on every node alike
                findings.push_back(node_finding(leader, key,
                                                fmt::format("not run is not a pass: the profile expects {} but the run did "
                                                            "not select it (add it to --tests or the suite)",
                                                            key),
                                                Cause::configuration));
            continue;  // selected but no result: the missing-result rule or the incomplete rank says it
        }
        std::vector<const TestRow*> ran;
        for (const TestRow* row : rows)
            if (row->test->status != Status::waived) ran.push_back(row);
        if (ran.empty()) {
            const std::string& reason = rows.front()->test->reason;
            // A GPU test the profile only implies, on a job too small for it (nccl with one GPU):
            // listed as not run, not failed; one the profile names must run.
            const bool named = std::find(expected.tests.begin(), expected.tests.end(), key) != expected.tests.end();
            if (!named && is_job_too_small_waiver(reason)) continue;
            findings.push_back(node_finding(leader, key,
                                            fmt::format("not run is not a pass: {} waived on every rank of {} ({})", key,
                                                        node.name, reason),
                                            cause_of_waiver(reason)));
            continue;
        }
        const int gpus = expected.gpus_per_node.value_or(0);
        if (gpus <= 0 || !measures_gpus(key, rows)) continue;
        std::set<std::string> measured;
        for (const TestRow* row : ran)
            if (row->who->gpu)
                measured.insert(row->who->gpu_uuid.empty()
                                    ? fmt::format("rank {} ordinal {}", row->who->rank, *row->who->gpu)
                                    : row->who->gpu_uuid);
        if (static_cast<int>(measured.size()) >= gpus) continue;
        const bool gpus_missing = static_cast<int>(facts.gpus.size()) < gpus;
        findings.push_back(node_finding(leader, key,
                                        fmt::format("not run is not a pass: {} measured {} of the {} GPUs {} must have{}",
                                                    key, measured.size(), gpus, node.name,
                                                    gpus_missing ? "" : " (launch one rank per GPU)"),
                                        gpus_missing ? Cause::hardware : Cause::configuration));
    }
}

}  // namespace

std::vector<Finding> profile_findings(const Observations& observations, const profile::Profile& profile,
                                      RunDetails& details) {
    std::vector<Finding> findings;
    for (const NodeRow& node : observations.nodes()) {
        if (node.name == unknown_node || node.ranks.empty()) continue;
        const RankIdentity& leader = *observations.rank(node.ranks.front());
        const profile::NodeClass* expected = profile.class_of(node.name);
        if (expected == nullptr) {
            findings.push_back(node_finding(leader, profile_check_name,
                                            fmt::format("{} is in no class of the profile {}: it cannot be judged against "
                                                        "what was bought (add it to a class)",
                                                        node.name, profile.source),
                                            Cause::configuration));
            continue;
        }
        const NodeDetails& node_details = details.node(node.name);
        if (!node_details.problem.empty()) continue;  // an unreadable leader is already an incomplete node
        const profile::NodeFacts facts = profile::node_facts(node_details.inventory);
        for (std::string& line : profile::differences(*expected, facts))
            findings.push_back(node_finding(leader, profile_check_name, fmt::format("{}: {}", node.name, line),
                                            Cause::hardware));
        check_expected_tests(observations, node, *expected, facts, leader, findings);
    }
    return findings;
}

}  // namespace shakedown::analysis
