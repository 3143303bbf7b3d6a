// Verdicts, computed once from everything the rules found: per node the worst of its ranks'
// findings (FAIL beats an incomplete node, which beats WARN), the tallies of judged tests, the
// waivers and the problems that made the run incomplete; then the run's overall verdict.
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/model/finding.hpp"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace shakedown::analysis {

// Ordered by severity: a node's verdict is the highest that applies. `error` is the run's only:
// something to fix (configuration, software) before the hardware can be judged.
enum class Verdict { pass, warn, incomplete, fail, error };
std::string_view to_string(Verdict verdict);  // "pass", "warn", "incomplete", "fail", "error"

struct TestTally {
    int passed = 0;   // ran, and no finding beyond pass
    int warned = 0;   // worst finding a WARN
    int failed = 0;   // worst finding a hardware FAIL (test failed, a metric in a FAIL band, a device missing)
    int errored = 0;  // worst finding a configuration or software FAIL: not judged, to fix
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
    // fail: a hardware FAIL; incomplete: a rank missing, or a test that could not be judged
    // (configuration, software); warn, pass.
    Verdict verdict = Verdict::pass;
    TestTally tests;                // per (rank, test)
    std::vector<Finding> findings;  // WARN and FAIL, in rank order
    std::vector<WaivedTest> waived;
    std::vector<std::string> incomplete;  // the problem lines of this node's ranks

    // The highest level's most telling finding (hardware before the rest, then localization, then
    // telemetry-explained, then the first), nullptr without findings.
    const Finding* worst_finding() const;
    int hardware_failures() const;  // FAIL findings the hardware must answer for
};

struct Judgement {
    std::vector<NodeVerdict> nodes;       // run.json's node order
    std::vector<std::string> incomplete;  // run-level and per-rank problem lines
    std::vector<std::string> errors;      // run-level problems to fix ("nothing ran: ..."): the run is an error
    TestTally tests;
    int ranks_expected = 0;
    int ranks_judged = 0;      // ranks whose trace could be read (fully or partly)
    int ranks_incomplete = 0;  // ranks with a problem: missing, unreadable, running, aborted, foreign
    Verdict overall = Verdict::pass;

    bool has_failures() const;
    bool is_incomplete() const { return !incomplete.empty(); }
    // FAIL findings whose cause is configuration or software: the run cannot be signed as it is.
    std::vector<const Finding*> to_fix() const;
    // 2 something to fix (wins: the run does not judge the hardware as asked), 3 incomplete (failures
    // may be consequences of the missing ranks), 1 hardware failures, 0 otherwise.
    int exit_code() const;
};

// Every finding filed under its node, every (rank, test) counted once at its worst level.
Judgement judge(const Observations& observations, std::vector<Finding> findings);

}  // namespace shakedown::analysis
