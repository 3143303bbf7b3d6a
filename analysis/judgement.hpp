// Judging: every test status and every metric of every rank against the thresholds, then a
// verdict per node (the worst of its ranks' findings). Works on values only (LoadedRun), so
// later rules (fleet references, baselines, telemetry explanations) add findings the same way.
#pragma once

#include "analysis/run_data.hpp"
#include "analysis/thresholds.hpp"
#include "core/result.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::analysis {

enum class Level { pass, warn, fail };
std::string_view to_string(Level level);

// Ordered by severity: a node's verdict is the highest that applies.
enum class Verdict { pass, warn, incomplete, fail };
std::string_view to_string(Verdict verdict);  // "pass", "warn", "incomplete", "fail"

// Which rule made a finding: the metric's thresholds (or the test's own status), the fleet outlier
// rule, the baseline comparison, link localization, the collective's slow-rank figures, or the
// whole-run RDMA port error counters.
enum class FindingSource { threshold, fleet, baseline, links, collective, port_counters };
std::string_view to_string(FindingSource source);

struct Finding {
    std::string node;
    int rank = 0;
    std::string test;
    std::string metric;  // empty for a finding about the test itself (failed, errored, no result)
    std::optional<double> value;
    std::string unit;
    std::optional<double> nominal;
    Level level = Level::pass;
    std::string reason;  // one line with the numbers: "stream.triad_gbs 4.1 GB/s is 0.52 of nominal 7.9 (fail below 0.60)"
    FindingSource source = FindingSource::threshold;
    std::optional<int> gpu;             // the rank's bound GPU (run.json "gpu"), when it had one
    std::optional<double> reference;    // the fleet median or the baseline value the finding compares with
    std::string explanation;            // what the telemetry showed in the test's window ("" when nothing known)
    bool telemetry_coincided = false;   // the explanation names something abnormal (else: "looks normal")

    std::optional<double> usable_fraction() const;  // value / nominal when both are known and nominal > 0
};

// A finding with the fields every rule sets; the later ones (gpu, reference, explanation, ...)
// keep their defaults until the rule or the explanation fills them.
Finding make_finding(std::string node, int rank, std::string test, std::string metric, std::optional<double> value,
                     std::string unit, std::optional<double> nominal, Level level, std::string reason);

struct MetricJudgment {
    Level level = Level::pass;
    std::string reason;  // empty on pass
};

// One metric against its rule (nullptr: no rule, only a non-finite value is judged).
MetricJudgment judge_metric(const Metric& metric, const MetricRule* rule);

struct TestTally {
    int passed = 0;  // status pass and no metric beyond a WARN level
    int warned = 0;  // status pass, at least one metric in a WARN band
    int failed = 0;  // status fail/error, a metric in a FAIL band, or no result recorded
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
    TestTally tests;
    std::vector<Finding> findings;         // WARN and FAIL only, in rank and test order
    std::vector<WaivedTest> waived;
    std::vector<std::string> incomplete;   // the problem lines of this node's ranks
    // Every judged (rank, test) and its worst level: the tallies are counted from these, so a
    // finding added by a later rule (fleet, baseline, localization) moves its test to warned/failed.
    std::map<std::pair<int, std::string>, Level> outcomes;

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

// The thresholds' judgment of every rank (tests, metrics, missing results), with tallies and verdicts.
Judgement judge_run(const LoadedRun& run, const Thresholds& thresholds);

// Adds findings of a later rule to their nodes (by name; an unknown node is appended) and marks
// their (rank, test) outcome; call refresh_verdicts() after the last one.
void add_findings(Judgement& judgement, std::vector<Finding> findings);
// Recounts tallies from the outcomes and recomputes every node verdict and the overall verdict.
void refresh_verdicts(Judgement& judgement);

// Numbers as the reasons print them: 3 significant digits, no exponent below a million.
std::string format_number(double value);

}  // namespace shakedown::analysis
