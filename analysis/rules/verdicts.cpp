#include "analysis/rules/verdicts.hpp"

#include "core/errors.hpp"

#include <algorithm>

namespace shakedown::analysis {
namespace {

Verdict verdict_of(const NodeVerdict& node) {
    Level worst = Level::pass;
    for (const Finding& finding : node.findings) worst = std::max(worst, finding.level);
    if (worst == Level::fail) return Verdict::fail;
    if (!node.incomplete.empty()) return Verdict::incomplete;
    return worst == Level::warn ? Verdict::warn : Verdict::pass;
}

}  // namespace

std::string_view to_string(Verdict verdict) {
    switch (verdict) {
        case Verdict::pass: return "pass";
        case Verdict::warn: return "warn";
        case Verdict::incomplete: return "incomplete";
        case Verdict::fail: return "fail";
    }
    return "unknown";
}

TestTally& TestTally::operator+=(const TestTally& other) {
    passed += other.passed;
    warned += other.warned;
    failed += other.failed;
    waived += other.waived;
    return *this;
}

const Finding* NodeVerdict::worst_finding() const {
    // Among the findings of the highest level, the most telling: a localization (it names the
    // culprit), then one the telemetry explains, then the first.
    auto telling = [](const Finding& finding) {
        if (finding.source == FindingSource::links || finding.source == FindingSource::collective) return 2;
        return finding.telemetry_coincided ? 1 : 0;
    };
    const Finding* worst = nullptr;
    for (const Finding& finding : findings)
        if (worst == nullptr || finding.level > worst->level ||
            (finding.level == worst->level && telling(finding) > telling(*worst)))
            worst = &finding;
    return worst;
}

bool Judgement::has_failures() const {
    return std::any_of(nodes.begin(), nodes.end(), [](const NodeVerdict& node) { return node.verdict == Verdict::fail; });
}

int Judgement::exit_code() const {
    if (is_incomplete()) return exit_code::incomplete;
    if (has_failures()) return exit_code::failures;
    return exit_code::ok;
}

Judgement judge(const Observations& observations, std::vector<Finding> findings) {
    const LoadedRun& run = observations.run();
    Judgement judgement;
    judgement.incomplete = run.run_problems;
    judgement.ranks_expected = static_cast<int>(run.ranks.size());

    std::map<std::string, std::size_t> position;
    auto node_for = [&](const std::string& name) -> NodeVerdict& {
        auto [entry, inserted] = position.emplace(name, judgement.nodes.size());
        if (inserted) {
            judgement.nodes.emplace_back();
            judgement.nodes.back().node = name;
        }
        return judgement.nodes[entry->second];
    };
    for (const NodeRow& node : observations.nodes()) node_for(node.name).ranks = node.ranks;
    for (const RankRecord& record : run.ranks) {
        NodeVerdict& node = node_for(observations.rank(record.rank)->node);
        if (record.problem != RankProblem::none) {
            node.incomplete.push_back(record.problem_text);
            judgement.incomplete.push_back(record.problem_text);
            ++judgement.ranks_incomplete;
        }
        if (record.trace) ++judgement.ranks_judged;
    }

    // Every (rank, test) that ran, at the worst level any rule gave it; a finding about a test
    // with no result (missing, a port counter check) counts as a test of its own.
    std::map<std::pair<int, std::string>, Level> outcomes;
    std::map<std::pair<int, std::string>, std::string> node_of_outcome;
    for (const TestRow& row : observations.tests()) {
        if (row.test->status == Status::waived) {
            NodeVerdict& node = node_for(row.who->node);
            ++node.tests.waived;
            node.waived.push_back({row.who->rank, row.test->key, row.test->reason});
            continue;
        }
        outcomes.try_emplace({row.who->rank, row.test->key}, Level::pass);
        node_of_outcome.try_emplace({row.who->rank, row.test->key}, row.who->node);
    }
    std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) { return a.rank < b.rank; });
    for (Finding& finding : findings) {
        const std::pair<int, std::string> key{finding.rank, finding.test};
        Level& level = outcomes.try_emplace(key, Level::pass).first->second;
        level = std::max(level, finding.level);
        node_of_outcome.try_emplace(key, finding.node);
        node_for(finding.node).findings.push_back(std::move(finding));
    }
    for (const auto& [key, level] : outcomes) {
        TestTally& tally = node_for(node_of_outcome[key]).tests;
        (level == Level::fail ? tally.failed : level == Level::warn ? tally.warned : tally.passed)++;
    }
    for (NodeVerdict& node : judgement.nodes) {
        node.verdict = verdict_of(node);
        judgement.tests += node.tests;
        judgement.overall = std::max(judgement.overall, node.verdict);
    }
    if (judgement.is_incomplete()) judgement.overall = std::max(judgement.overall, Verdict::incomplete);
    return judgement;
}

}  // namespace shakedown::analysis
