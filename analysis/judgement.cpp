#include "analysis/judgement.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace shakedown::analysis {
namespace {

std::string with_unit(double value, const std::string& unit) {
    return unit.empty() ? format_number(value) : format_number(value) + " " + unit;
}

// One check's outcome; the worst check of a rule decides, the first at that level explains.
struct CheckResult {
    Level level = Level::pass;
    std::string reason;
};

void keep_worst(CheckResult& worst, CheckResult candidate) {
    if (candidate.level > worst.level) worst = std::move(candidate);
}

CheckResult check_fraction(const Metric& metric, const FractionBand& band) {
    if (!metric.nominal || *metric.nominal <= 0.0) return {};  // nothing to compare with
    const std::string head = fmt::format("{} {}", metric.name, with_unit(metric.value, metric.unit));
    if (metric.better == Better::lower && metric.value <= 0.0)
        return {Level::fail, fmt::format("{} is not positive: cannot be compared with nominal {}", head,
                                         format_number(*metric.nominal))};
    const double fraction = *metric.usable_fraction();
    const char* how = metric.better == Better::lower ? "nominal/value, lower is better; " : "";
    auto verdict = [&](Level level, const char* band_name, double limit) {
        return CheckResult{level, fmt::format("{} is {:.2f} of nominal {} ({}{} below {:.2f})", head, fraction,
                                              format_number(*metric.nominal), how, band_name, limit)};
    };
    if (band.fail && fraction < *band.fail) return verdict(Level::fail, "fail", *band.fail);
    if (band.warn && fraction < *band.warn) return verdict(Level::warn, "warn", *band.warn);
    return {};
}

CheckResult check_bound(const Metric& metric, const std::optional<double>& bound, Level level, bool below) {
    if (!bound) return {};
    const bool violated = below ? metric.value < *bound : metric.value > *bound;
    if (!violated) return {};
    return {level, fmt::format("{} {} is {} the {} bound {}", metric.name, with_unit(metric.value, metric.unit),
                               below ? "below" : "above", level == Level::fail ? "fail" : "warn",
                               with_unit(*bound, metric.unit))};
}

// Rules looked up once per metric name: a run repeats the same few dozen names on every rank.
class RuleCache {
public:
    explicit RuleCache(const Thresholds& thresholds) : thresholds_(thresholds) {}
    const MetricRule* rule_for(const std::string& name) {
        auto [entry, inserted] = rules_.try_emplace(name, nullptr);
        if (inserted) entry->second = thresholds_.rule_for(name);
        return entry->second;
    }

private:
    const Thresholds& thresholds_;
    std::map<std::string, const MetricRule*, std::less<>> rules_;
};

void record_outcome(NodeVerdict& node, int rank, const std::string& test, Level level) {
    auto [entry, inserted] = node.outcomes.try_emplace({rank, test}, level);
    if (!inserted) entry->second = std::max(entry->second, level);
}

// The test-level outcome of one test on one rank, plus its findings.
void judge_test(const TestResult& test, const RankRecord& record, RuleCache& rules, NodeVerdict& node) {
    if (test.status == Status::waived) {
        ++node.tests.waived;
        node.waived.push_back({record.rank, test.key, test.reason});
        return;
    }
    Level worst = Level::pass;
    auto add = [&](Level level, std::string metric, std::optional<double> value, std::string unit,
                   std::optional<double> nominal, std::string reason) {
        worst = std::max(worst, level);
        Finding finding = make_finding(node.node, record.rank, test.key, std::move(metric), value, std::move(unit), nominal,
                        level, std::move(reason));
        finding.gpu = record.gpu;
        node.findings.push_back(std::move(finding));
    };
    if (test.failed()) {
        const char* what = test.status == Status::error ? "ended with an error" : "failed";
        add(Level::fail, "", std::nullopt, "", std::nullopt,
            fmt::format("{} {}: {}", test.key, what, test.reason.empty() ? "no reason given" : test.reason));
    }
    for (const Metric& metric : test.metrics) {
        MetricJudgment judgment = judge_metric(metric, rules.rule_for(metric.name));
        if (judgment.level != Level::pass)
            add(judgment.level, metric.name, metric.value, metric.unit, metric.nominal, std::move(judgment.reason));
    }
    record_outcome(node, record.rank, test.key, worst);
}

// A finished rank must have a result for every test the run listed; a missing one is a FAIL
// (the test neither ran nor waived itself). Unfinished ranks are reported as incomplete instead.
void judge_missing_tests(const RankRecord& record, const RunManifest& manifest, NodeVerdict& node) {
    if (record.trace->status != TraceStatus::complete) return;
    for (const std::string& key : manifest.tests) {
        const auto& tests = record.trace->tests;
        if (std::any_of(tests.begin(), tests.end(), [&](const TestResult& test) { return test.key == key; }))
            continue;
        record_outcome(node, record.rank, key, Level::fail);
        Finding finding = make_finding(node.node, record.rank, key, "", std::nullopt, "", std::nullopt, Level::fail,
                        fmt::format("{}: no result recorded although the run listed it", key));
        finding.gpu = record.gpu;
        node.findings.push_back(std::move(finding));
    }
}

Verdict verdict_of(const NodeVerdict& node) {
    Level worst = Level::pass;
    for (const Finding& finding : node.findings) worst = std::max(worst, finding.level);
    if (worst == Level::fail) return Verdict::fail;
    if (!node.incomplete.empty()) return Verdict::incomplete;
    return worst == Level::warn ? Verdict::warn : Verdict::pass;
}

}  // namespace

std::string_view to_string(Level level) {
    switch (level) {
        case Level::pass: return "pass";
        case Level::warn: return "warn";
        case Level::fail: return "fail";
    }
    return "unknown";
}

std::string_view to_string(FindingSource source) {
    switch (source) {
        case FindingSource::threshold: return "threshold";
        case FindingSource::fleet: return "fleet";
        case FindingSource::baseline: return "baseline";
        case FindingSource::links: return "links";
        case FindingSource::collective: return "collective";
        case FindingSource::port_counters: return "port_counters";
    }
    return "unknown";
}

Finding make_finding(std::string node, int rank, std::string test, std::string metric, std::optional<double> value,
                     std::string unit, std::optional<double> nominal, Level level, std::string reason) {
    Finding finding;
    finding.node = std::move(node);
    finding.rank = rank;
    finding.test = std::move(test);
    finding.metric = std::move(metric);
    finding.value = value;
    finding.unit = std::move(unit);
    finding.nominal = nominal;
    finding.level = level;
    finding.reason = std::move(reason);
    return finding;
}

std::optional<double> Finding::usable_fraction() const {
    if (!value || !nominal || *nominal <= 0.0) return std::nullopt;
    return *value / *nominal;
}

std::string_view to_string(Verdict verdict) {
    switch (verdict) {
        case Verdict::pass: return "pass";
        case Verdict::warn: return "warn";
        case Verdict::incomplete: return "incomplete";
        case Verdict::fail: return "fail";
    }
    return "unknown";
}

std::string format_number(double value) {
    if (!std::isfinite(value)) return fmt::format("{}", value);
    const double magnitude = std::fabs(value);
    if (magnitude >= 100.0 && magnitude < 1e6) return fmt::format("{:.0f}", value);
    return fmt::format("{:.3g}", value);
}

MetricJudgment judge_metric(const Metric& metric, const MetricRule* rule) {
    if (!std::isfinite(metric.value))
        return {Level::fail, fmt::format("{} is {}: the measurement produced no number", metric.name, metric.value)};
    if (rule == nullptr) return {};
    CheckResult worst;
    if (rule->fraction_of_nominal) keep_worst(worst, check_fraction(metric, *rule->fraction_of_nominal));
    keep_worst(worst, check_bound(metric, rule->fail_below, Level::fail, /*below=*/true));
    keep_worst(worst, check_bound(metric, rule->fail_above, Level::fail, /*below=*/false));
    keep_worst(worst, check_bound(metric, rule->warn_below, Level::warn, /*below=*/true));
    keep_worst(worst, check_bound(metric, rule->warn_above, Level::warn, /*below=*/false));
    return {worst.level, std::move(worst.reason)};
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

void add_findings(Judgement& judgement, std::vector<Finding> findings) {
    std::map<std::string, std::size_t> position;
    for (std::size_t i = 0; i < judgement.nodes.size(); ++i) position.emplace(judgement.nodes[i].node, i);
    for (Finding& finding : findings) {
        auto [entry, inserted] = position.emplace(finding.node, judgement.nodes.size());
        if (inserted) {
            judgement.nodes.emplace_back();
            judgement.nodes.back().node = finding.node;
        }
        NodeVerdict& node = judgement.nodes[entry->second];
        record_outcome(node, finding.rank, finding.test, finding.level);
        node.findings.push_back(std::move(finding));
    }
}

void refresh_verdicts(Judgement& judgement) {
    judgement.tests = {};
    judgement.overall = Verdict::pass;
    for (NodeVerdict& node : judgement.nodes) {
        const int waived = node.tests.waived;
        node.tests = {};
        node.tests.waived = waived;
        for (const auto& [key, level] : node.outcomes) {
            if (level == Level::fail) ++node.tests.failed;
            else if (level == Level::warn) ++node.tests.warned;
            else ++node.tests.passed;
        }
        node.verdict = verdict_of(node);
        judgement.tests += node.tests;
        judgement.overall = std::max(judgement.overall, node.verdict);
    }
    if (judgement.is_incomplete()) judgement.overall = std::max(judgement.overall, Verdict::incomplete);
}

Judgement judge_run(const LoadedRun& run, const Thresholds& thresholds) {
    Judgement judgement;
    judgement.incomplete = run.run_problems;
    judgement.ranks_expected = static_cast<int>(run.ranks.size());

    std::map<std::string, std::size_t> node_position;
    auto node_for = [&](const std::string& name) -> NodeVerdict& {
        auto [entry, inserted] = node_position.emplace(name, judgement.nodes.size());
        if (inserted) {
            judgement.nodes.emplace_back();
            judgement.nodes.back().node = name;
        }
        return judgement.nodes[entry->second];
    };
    for (const ManifestNode& node : run.manifest.nodes) node_for(node.name);

    RuleCache rules(thresholds);
    for (const RankRecord& record : run.ranks) {
        NodeVerdict& node = node_for(record.node.empty() ? std::string("(unknown node)") : record.node);
        node.ranks.push_back(record.rank);
        if (record.problem != RankProblem::none) {
            node.incomplete.push_back(record.problem_text);
            judgement.incomplete.push_back(record.problem_text);
            ++judgement.ranks_incomplete;
        }
        if (!record.trace) continue;
        ++judgement.ranks_judged;
        for (const TestResult& test : record.trace->tests) judge_test(test, record, rules, node);
        judge_missing_tests(record, run.manifest, node);
    }
    refresh_verdicts(judgement);
    return judgement;
}

}  // namespace shakedown::analysis
