#include "analysis/rules/figures/threshold_rule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace shakedown::analysis {
namespace {

// One check's outcome; the worst check of a rule decides, the first at that level explains.
struct CheckResult {
    Level level = Level::pass;
    std::string reason;
    std::optional<double> reference;  // the calibrated healthy figure it was compared with
    ReasonCode code = ReasonCode::unclassified;
    std::optional<double> bound;  // the band's edge in the metric's unit (on a pass: the edge it met)
    bool applied = false;         // the check compared the figure (a band without a nominal does not)
};

// A passed check: the figure met `edge` (in its unit).
CheckResult met(std::optional<double> edge) {
    CheckResult passed;
    passed.bound = edge;
    passed.applied = true;
    return passed;
}

// The value at which `relative` (value / healthy, or healthy / value when lower is better)
// reaches `limit`: the band's edge in the metric's own unit.
double edge_in_unit(const Metric& metric, double healthy, double limit) {
    return metric.better == Better::lower ? healthy / limit : healthy * limit;
}

// The worst check decides; among passes, the first that names an edge says which it met.
void keep_worst(CheckResult& worst, CheckResult candidate) {
    const bool applied = worst.applied || candidate.applied;
    if (candidate.level > worst.level || (candidate.level == worst.level && worst.level == Level::pass && !worst.bound))
        worst = std::move(candidate);
    worst.applied = applied;
}

CheckResult check_fraction(const Metric& metric, const FractionBand& band) {
    if (!metric.nominal || *metric.nominal <= 0.0) return {};  // nothing to compare with
    const std::string head = fmt::format("{} {}", metric.name, with_unit(metric.value, metric.unit));
    if (metric.better == Better::lower && metric.value <= 0.0)
        return {Level::fail,
                fmt::format("{} is not positive: cannot be compared with nominal {}", head, format_number(*metric.nominal)),
                std::nullopt,
                ReasonCode::below_nominal_fraction,
                std::nullopt,
                true};
    const double fraction = *metric.usable_fraction();
    const char* how = metric.better == Better::lower ? "nominal/value, lower is better; " : "";
    auto verdict = [&](Level level, const char* band_name, double limit) {
        return CheckResult{level,
                           fmt::format("{} is {:.2f} of nominal {} ({}{} below {:.2f})", head, fraction,
                                       format_number(*metric.nominal), how, band_name, limit),
                           std::nullopt,
                           ReasonCode::below_nominal_fraction,
                           edge_in_unit(metric, *metric.nominal, limit),
                           true};
    };
    if (band.fail && fraction < *band.fail) return verdict(Level::fail, "fail", *band.fail);
    if (band.warn && fraction < *band.warn) return verdict(Level::warn, "warn", *band.warn);
    const std::optional<double> tightest = band.warn ? band.warn : band.fail;
    if (!tightest) return {};
    return met(edge_in_unit(metric, *metric.nominal, *tightest));
}

// Against what healthy hardware of the part gives: value / (healthy fraction x nominal), or
// value / healthy value (inverted when lower is better).
CheckResult check_calibrated(const Metric& metric, const CalibratedReference& reference, const CalibrationBands& bands,
                             const std::string& gpu_name) {
    std::optional<double> healthy;
    std::string healthy_text;
    if (reference.healthy_fraction) {
        if (!metric.nominal || *metric.nominal <= 0.0) return {};
        healthy = *reference.healthy_fraction * *metric.nominal;
        healthy_text = fmt::format("{:.2f} of nominal {}", *reference.healthy_fraction, format_number(*metric.nominal));
    } else {
        healthy = *reference.healthy_value;
        healthy_text = "measured on healthy hardware";
    }
    if (metric.value <= 0.0)
        return {Level::fail,  fmt::format("{} is {}: not a rate", metric.name, metric.value),
                std::nullopt, ReasonCode::below_calibrated,
                std::nullopt, true};
    const double relative = metric.better == Better::higher ? metric.value / *healthy : *healthy / metric.value;
    auto verdict = [&](Level level, const char* band_name, double limit) {
        return CheckResult{level,
                           fmt::format("{} {} is {:.3g} of a healthy {}'s {} (calibrated: {}; {} below {:.2f} of it)",
                                       metric.name, with_unit(metric.value, metric.unit), relative, gpu_name,
                                       with_unit(*healthy, metric.unit), healthy_text, band_name, limit),
                           healthy,
                           ReasonCode::below_calibrated,
                           edge_in_unit(metric, *healthy, limit),
                           true};
    };
    if (relative < bands.fail_below) return verdict(Level::fail, "fail", bands.fail_below);
    if (relative < bands.warn_below) return verdict(Level::warn, "warn", bands.warn_below);
    CheckResult passed = met(edge_in_unit(metric, *healthy, bands.warn_below));
    passed.reference = healthy;
    return passed;
}

CheckResult check_bound(const Metric& metric, const std::optional<double>& bound, Level level, bool below) {
    if (!bound) return {};
    const bool violated = below ? metric.value < *bound : metric.value > *bound;
    if (!violated) return met(*bound);
    return {level,
            fmt::format("{} {} is {} the {} bound {}", metric.name, with_unit(metric.value, metric.unit),
                        below ? "below" : "above", level == Level::fail ? "fail" : "warn", with_unit(*bound, metric.unit)),
            std::nullopt,
            below ? ReasonCode::below_bound : ReasonCode::above_bound,
            *bound,
            true};
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

}  // namespace

MetricJudgment judge_metric(const Metric& metric, const MetricRule* rule, const CalibratedReference* calibrated,
                            const CalibrationBands& bands, std::string_view gpu_without_calibration) {
    if (!std::isfinite(metric.value))
        return {Level::fail,
                fmt::format("{} is {}: the measurement produced no number", metric.name, metric.value),
                std::nullopt,
                std::nullopt,
                ReasonCode::not_a_number,
                std::nullopt,
                true};
    if (rule == nullptr) return {};
    CheckResult worst;
    if (calibrated != nullptr && (rule->fraction_of_nominal || rule->calibrated))
        keep_worst(worst, check_calibrated(metric, *calibrated, bands, calibrated->part));
    else if (!gpu_without_calibration.empty() && (rule->gpu_fraction_of_nominal || rule->fraction_of_nominal)) {
        CheckResult generic = check_fraction(metric, rule->gpu_fraction_of_nominal ? *rule->gpu_fraction_of_nominal
                                                                                   : *rule->fraction_of_nominal);
        // A generic band was set for no part in particular: the finding says so, and how to get a fair one.
        if (generic.level != Level::pass)
            generic.reason += fmt::format("; generic band: no calibrated figure for {} (shakedown-analyze calibrate "
                                          "on healthy nodes of this part writes one)",
                                          gpu_without_calibration);
        keep_worst(worst, std::move(generic));
    } else if (rule->fraction_of_nominal) keep_worst(worst, check_fraction(metric, *rule->fraction_of_nominal));
    if (rule->above_nominal_warns_at && metric.better == Better::higher && metric.nominal && *metric.nominal > 0.0 &&
        metric.value > *rule->above_nominal_warns_at * *metric.nominal && worst.level == Level::pass)
        return {Level::warn,
                fmt::format("nominal not credible: {} {} is {:.2f} x its nominal {} (warn above {:.2f} x): the nominal "
                            "undercounts this part (its clock or its FMA units); fix the nominal before judging by it",
                            metric.name, with_unit(metric.value, metric.unit), metric.value / *metric.nominal,
                            with_unit(*metric.nominal, metric.unit), *rule->above_nominal_warns_at),
                std::nullopt,
                Cause::configuration,
                ReasonCode::nominal_not_credible,
                *rule->above_nominal_warns_at * *metric.nominal,
                true};
    keep_worst(worst, check_bound(metric, rule->fail_below, Level::fail, /*below=*/true));
    keep_worst(worst, check_bound(metric, rule->fail_above, Level::fail, /*below=*/false));
    keep_worst(worst, check_bound(metric, rule->warn_below, Level::warn, /*below=*/true));
    keep_worst(worst, check_bound(metric, rule->warn_above, Level::warn, /*below=*/false));
    return {worst.level, std::move(worst.reason), worst.reference, std::nullopt, worst.code, worst.bound, worst.applied};
}

std::vector<Finding> test_status_findings(const Observations& observations) {
    std::vector<Finding> findings;
    for (const TestRow& row : observations.tests()) {
        if (!row.test->failed()) continue;
        const char* what = row.test->status == Status::error ? "ended with an error" : "failed";
        Finding finding = make_finding(*row.who, row.test->key, Level::fail,
                                       fmt::format("{} {}: {}", row.test->key, what,
                                                   row.test->reason.empty() ? "no reason given" : row.test->reason));
        finding.cause = cause_of(*row.test).value_or(Cause::hardware);
        finding.code = row.test->status == Status::error ? ReasonCode::test_errored : ReasonCode::test_failed;
        findings.push_back(std::move(finding));
    }
    return findings;
}

std::vector<Finding> missing_result_findings(const Observations& observations) {
    std::vector<Finding> findings;
    const LoadedRun& run = observations.run();
    for (const RankRecord& record : run.ranks) {
        if (!record.trace || record.trace->status != TraceStatus::complete) continue;
        const auto& tests = record.trace->tests;
        for (const std::string& key : run.manifest.tests)
            if (std::none_of(tests.begin(), tests.end(), [&](const TestResult& test) { return test.key == key; })) {
                // The rank finished without running or waiving it: the driver's fault, not the node's.
                Finding finding = make_finding(*observations.rank(record.rank), key, Level::fail,
                                               fmt::format("{}: no result recorded although the run listed it", key));
                finding.cause = Cause::software;
                finding.code = ReasonCode::no_result;
                findings.push_back(std::move(finding));
            }
    }
    return findings;
}

std::vector<Finding> threshold_findings(const Observations& observations, const Thresholds& thresholds,
                                        JudgedMetrics* judged) {
    std::vector<Finding> findings;
    RuleCache rules(thresholds);
    const CalibratedReferences& calibration = thresholds.calibration();
    const int world_size = static_cast<int>(observations.ranks().size());
    for (const MetricRow& row : observations.metrics()) {
        const CalibratedReference* calibrated = calibration.find(row.metric->name, row.who->gpu_name, row.test->parameters,
                                                                 ranks_measured(*row.test, world_size));
        MetricJudgment judgment =
            judge_metric(*row.metric, rules.rule_for(row.metric->name), calibrated,
                         calibrated != nullptr ? calibration.bands_of(*calibrated) : calibration.bands(),
                         calibrated == nullptr && measured_on_gpu(*row.who, *row.test) ? row.who->gpu_name : "");
        if (judgment.judged && judged != nullptr) judged->add(row.who->rank, row.metric->name, judgment.bound);
        if (judgment.level != Level::pass) {
            Finding finding =
                make_metric_finding(*row.who, row.test->key, *row.metric, judgment.level, std::move(judgment.reason));
            finding.reference = judgment.reference;
            if (judgment.cause) finding.cause = *judgment.cause;
            finding.code = judgment.code;
            finding.bound = judgment.bound;
            // A figure outside its band is re-measured before it drains; a NaN or infinite one
            // is a wrong answer, not a slow one.
            if (std::isfinite(row.metric->value)) finding.evidence = Evidence::figure;
            findings.push_back(std::move(finding));
        }
    }
    return findings;
}

}  // namespace shakedown::analysis
