#include "analysis/rules/model/verdicts.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace shakedown::analysis {
namespace {

bool needs_fixing(const Finding& finding) { return finding.level == Level::fail && finding.cause != Cause::hardware; }

Verdict verdict_of(const NodeVerdict& node) {
    Level worst = Level::pass;
    bool unjudged = false;
    for (const Finding& finding : node.findings) {
        if (needs_fixing(finding)) unjudged = true;
        else worst = std::max(worst, finding.level);
    }
    if (worst == Level::fail) return Verdict::fail;
    if (!node.incomplete.empty() || unjudged) return Verdict::incomplete;
    return worst == Level::warn ? Verdict::warn : Verdict::pass;
}

}  // namespace

std::string_view to_string(Verdict verdict) {
    switch (verdict) {
    case Verdict::pass: return "pass";
    case Verdict::warn: return "warn";
    case Verdict::incomplete: return "incomplete";
    case Verdict::fail: return "fail";
    case Verdict::error: return "error";
    }
    return "unknown";
}

TestTally& TestTally::operator+=(const TestTally& other) {
    passed += other.passed;
    warned += other.warned;
    failed += other.failed;
    errored += other.errored;
    waived += other.waived;
    return *this;
}

const Finding* NodeVerdict::worst_finding() const {
    // Among the findings of the highest level, the most telling: a localization (it names the
    // culprit), then one the telemetry explains, then the first.
    auto telling = [](const Finding& finding) {
        const int hardware = finding.cause == Cause::hardware ? 10 : 0;
        if (finding.source == FindingSource::links || finding.source == FindingSource::collective) return hardware + 2;
        return hardware + (finding.telemetry_coincided ? 1 : 0);
    };
    const Finding* worst = nullptr;
    for (const Finding& finding : findings)
        if (worst == nullptr || finding.level > worst->level ||
            (finding.level == worst->level && telling(finding) > telling(*worst)))
            worst = &finding;
    return worst;
}

int NodeVerdict::hardware_failures() const {
    return static_cast<int>(std::count_if(findings.begin(), findings.end(), [](const Finding& finding) {
        return finding.level == Level::fail && finding.cause == Cause::hardware;
    }));
}

std::vector<const Finding*> Judgement::to_fix() const {
    std::vector<const Finding*> found;
    for (const NodeVerdict& node : nodes)
        for (const Finding& finding : node.findings)
            if (needs_fixing(finding)) found.push_back(&finding);
    return found;
}

bool Judgement::has_failures() const {
    return std::any_of(nodes.begin(), nodes.end(), [](const NodeVerdict& node) { return node.verdict == Verdict::fail; });
}

int Judgement::exit_code() const {
    if (overall == Verdict::error) return exit_code::bad_input;
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
    struct Outcome {
        Level level = Level::pass;
        bool to_fix = false;
    };
    std::map<std::pair<int, std::string>, Outcome> outcomes;
    std::map<std::pair<int, std::string>, std::string> node_of_outcome;
    for (const TestRow& row : observations.tests()) {
        if (row.test->status == Status::waived) {
            NodeVerdict& node = node_for(row.who->node);
            ++node.tests.waived;
            node.waived.push_back({row.who->rank, row.test->key, row.test->reason});
            continue;
        }
        outcomes.try_emplace({row.who->rank, row.test->key});
        node_of_outcome.try_emplace({row.who->rank, row.test->key}, row.who->node);
    }
    std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) { return a.rank < b.rank; });
    for (Finding& finding : findings) {
        const std::pair<int, std::string> key{finding.rank, finding.test};
        Outcome& outcome = outcomes.try_emplace(key).first->second;
        if (needs_fixing(finding)) outcome.to_fix = true;
        else outcome.level = std::max(outcome.level, finding.level);
        node_of_outcome.try_emplace(key, finding.node);
        node_for(finding.node).findings.push_back(std::move(finding));
    }
    for (const auto& [key, outcome] : outcomes) {
        TestTally& tally = node_for(node_of_outcome[key]).tests;
        (outcome.level == Level::fail   ? tally.failed
         : outcome.to_fix               ? tally.errored
         : outcome.level == Level::warn ? tally.warned
                                        : tally.passed)++;
    }
    // Not run is not a pass: a node where every test waived itself is not judged, and a run in
    // which nothing ran at all is an error, never a PASS.
    for (NodeVerdict& node : judgement.nodes) {
        const TestTally& tally = node.tests;
        if (tally.waived > 0 && tally.passed + tally.warned + tally.failed + tally.errored == 0) {
            const std::string line =
                fmt::format("{}: nothing ran (every test of its {} rank(s) waived itself)", node.node, node.ranks.size());
            node.incomplete.push_back(line);
            judgement.incomplete.push_back(line);
        }
    }
    TestTally all;
    for (const NodeVerdict& node : judgement.nodes) all += node.tests;
    if (all.passed + all.warned + all.failed + all.errored == 0 && judgement.ranks_judged > 0)
        judgement.errors.push_back(all.waived > 0 ? fmt::format("nothing ran: all {} test result(s) are waivers", all.waived)
                                                  : std::string("nothing ran: no test result in any trace"));
    for (NodeVerdict& node : judgement.nodes) {
        node.verdict = verdict_of(node);
        judgement.tests += node.tests;
        judgement.overall = std::max(judgement.overall, node.verdict);
    }
    if (judgement.is_incomplete()) judgement.overall = std::max(judgement.overall, Verdict::incomplete);
    if (!judgement.to_fix().empty() || !judgement.errors.empty()) judgement.overall = Verdict::error;
    return judgement;
}

}  // namespace shakedown::analysis
