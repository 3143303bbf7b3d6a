// Verdicts, computed once from everything the rules found: per node the worst of its ranks'
// findings (FAIL beats an incomplete node, which beats WARN), the tallies of judged tests, the
// waivers and the problems that made the run incomplete; then the run's overall verdict.
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/finding.hpp"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace shakedown::analysis {

// Ordered by severity: a node's verdict is the highest that applies.
enum class Verdict { pass, warn, incomplete, fail };
std::string_view to_string(Verdict verdict);  // "pass", "warn", "incomplete", "fail"

struct TestTally {
    int passed = 0;  // ran, and no finding beyond pass
    int warned = 0;  // worst finding a WARN
    int failed = 0;  // worst finding a FAIL (test failed or errored, a metric in a FAIL band, no result)
    int waived = 0;
    TestTally& operator+=(const TestTally& other);
};

struct WaivedTest {
    int rank = 0;
    std::string test;
    std::string reason;
};

struct NodeVerdict {
    std::string node;
    std::vector<int> ranks;
    Verdict verdict = Verdict::pass;
    TestTally tests;                       // per (rank, test)
    std::vector<Finding> findings;         // WARN and FAIL, in rank order
    std::vector<WaivedTest> waived;
    std::vector<std::string> incomplete;   // the problem lines of this node's ranks

    // The highest level's most telling finding (localization, then telemetry-explained, then the
    // first), nullptr without findings.
    const Finding* worst_finding() const;
};

struct Judgement {
    std::vector<NodeVerdict> nodes;       // run.json's node order
    std::vector<std::string> incomplete;  // run-level and per-rank problem lines
    TestTally tests;
    int ranks_expected = 0;
    int ranks_judged = 0;                 // ranks whose trace could be read (fully or partly)
    int ranks_incomplete = 0;             // ranks with a problem: missing, unreadable, running, aborted, foreign
    Verdict overall = Verdict::pass;

    bool has_failures() const;
    bool is_incomplete() const { return !incomplete.empty(); }
    // 3 incomplete (wins: failures may be consequences of the missing ranks), 1 failures, 0 otherwise.
    int exit_code() const;
};

// Every finding filed under its node, every (rank, test) counted once at its worst level.
Judgement judge(const Observations& observations, std::vector<Finding> findings);

}  // namespace shakedown::analysis
