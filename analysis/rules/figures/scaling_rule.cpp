#include "analysis/rules/figures/scaling_rule.hpp"

#include "analysis/rules/figures/scaling_declarations.hpp"
#include "analysis/rules/links/slow_ranks.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>

namespace shakedown::analysis {
namespace {

struct RankFigures {
    const RankIdentity* who = nullptr;
    const TestResult* test = nullptr;
};

std::vector<RankFigures> ranks_of(const Observations& observations, const ScalingDeclaration& names) {
    std::vector<RankFigures> ranks;
    for (const TestRow& row : observations.tests())
        if (row.test->key == names.test && row.test->status != Status::waived && row.test->status != Status::error)
            ranks.push_back({row.who, row.test});
    return ranks;
}

std::optional<double> median_of(const std::vector<RankFigures>& ranks, std::string_view metric) {
    std::vector<double> values;
    for (const RankFigures& rank : ranks)
        if (const Metric* found = finite_metric(*rank.test, metric)) values.push_back(found->value);
    if (values.empty()) return std::nullopt;
    return stats::median(values);
}

// How far a ratio must be from 1 before it says something: the configured band, or
// `noise_margin` times the ranks' median step-time scatter where that is wider (ranks sharing
// cores scattered by 0.10-0.39, an H100's steps by 0.025-0.038: docs/benchmarks.md).
double margin(const ScalingDeclaration& names, const std::vector<RankFigures>& ranks, double band,
              const AnalysisSettings& settings) {
    const auto noise = median_of(ranks, names.step_noise);
    return std::max(band, noise ? settings.scaling_noise_margin() * *noise : 0.0);
}

struct JobFigures {
    double efficiency = 0.0;
    double predicted = 0.0;
    double bus_gbs = 0.0;
};

std::optional<JobFigures> job_figures(const ScalingDeclaration& names, const std::vector<RankFigures>& ranks) {
    for (const RankFigures& rank : ranks) {
        const Metric* efficiency = finite_metric(*rank.test, names.job_efficiency);
        const Metric* predicted = finite_metric(*rank.test, names.predicted_job_efficiency);
        const Metric* bus = finite_metric(*rank.test, names.job_comm_gbs);
        if (efficiency && predicted && bus) return JobFigures{efficiency->value, predicted->value, bus->value};
    }
    return std::nullopt;
}

std::string job_line(const ScalingDeclaration& names, const JobFigures& job) {
    return fmt::format(
        "the job's {} ran at {} of the median rank's step alone, {} predicted from this run's figures ({} {})",
        names.job_step, format_number(job.efficiency), format_number(job.predicted), names.comm_figure,
        with_unit(job.bus_gbs, "GB/s"));
}

// Ranks whose step alone takes far longer than the median rank's: the job waits for them.
std::vector<Finding> slow_alone_findings(const ScalingDeclaration& names, const std::vector<RankFigures>& ranks,
                                         const std::optional<JobFigures>& job, const AnalysisSettings& settings) {
    std::vector<Finding> findings;
    const auto median = median_of(ranks, names.alone_step_s);
    if (!median || *median <= 0.0 || ranks.size() < 2) return findings;
    for (const RankFigures& rank : ranks) {
        const Metric* alone = finite_metric(*rank.test, names.alone_step_s);
        if (alone == nullptr) continue;
        const double ratio = alone->value / *median;
        const double warn_ratio = 1.0 + margin(names, ranks, settings.scaling_slow_rank_warn() - 1.0, settings);
        if (ratio < warn_ratio) continue;
        const Level level = ratio >= std::max(warn_ratio, settings.scaling_slow_rank_fail()) ? Level::fail : Level::warn;
        Finding finding = make_metric_finding(*rank.who, rank.test->key, *alone, level, "", FindingSource::scaling);
        finding.code = ReasonCode::slow_alone;
        finding.reference = *median;
        finding.bound = *median *
                        (level == Level::fail ? std::max(warn_ratio, settings.scaling_slow_rank_fail()) : warn_ratio);
        finding.evidence = Evidence::figure;
        finding.reason = fmt::format(
            "slow rank: {} runs {} alone in {}x the median rank's time ({} against {}; warn from {}x, fail from {}x): {}{}",
            rank_label(finding), names.work, format_number(ratio), with_unit(alone->value, "s"), with_unit(*median, "s"),
            format_number(warn_ratio), format_number(std::max(warn_ratio, settings.scaling_slow_rank_fail())),
            names.waits_for_it, job ? "; " + job_line(names, *job) : "");
        findings.push_back(std::move(finding));
    }
    return findings;
}

// Node leaders whose link figure is far below the fabric's median.
std::vector<Finding> slow_link_findings(const ScalingDeclaration& names, const std::vector<RankFigures>& ranks,
                                        const std::optional<JobFigures>& job, const AnalysisSettings& settings) {
    std::vector<Finding> findings;
    if (names.node_link_gbs.empty()) return findings;
    std::vector<const RankFigures*> leaders;
    for (const RankFigures& rank : ranks)
        if (finite_metric(*rank.test, names.node_link_gbs)) leaders.push_back(&rank);
    // Two nodes share their one link: which end is slow cannot be told.
    if (leaders.size() < 3) return findings;
    std::vector<double> figures;
    for (const RankFigures* leader : leaders) figures.push_back(finite_metric(*leader->test, names.node_link_gbs)->value);
    const double median = stats::median(figures);
    if (median <= 0.0) return findings;
    for (const RankFigures* leader : leaders) {
        const Metric* link = finite_metric(*leader->test, names.node_link_gbs);
        const double fraction = link->value / median;
        if (fraction >= settings.scaling_link_warn()) continue;
        const Level level = fraction < settings.scaling_link_fail() ? Level::fail : Level::warn;
        Finding finding = make_metric_finding(*leader->who, leader->test->key, *link, level, "", FindingSource::scaling);
        finding.code = ReasonCode::slow_node_links;
        finding.reference = median;
        finding.bound = median * (level == Level::fail ? settings.scaling_link_fail() : settings.scaling_link_warn());
        finding.evidence = Evidence::figure;
        // Measured again with the nodes that measured well, so a confirmation has links to compare.
        std::vector<const RankFigures*> peers = leaders;
        std::sort(peers.begin(), peers.end(), [&names](const RankFigures* a, const RankFigures* b) {
            return finite_metric(*a->test, names.node_link_gbs)->value > finite_metric(*b->test, names.node_link_gbs)->value;
        });
        for (const RankFigures* peer : peers)
            if (peer->who->node != leader->who->node && finding.peers.size() < 3) finding.peers.push_back(peer->who->node);
        finding.reason = fmt::format("slow network link: {}'s all-reduces with other nodes' leaders ran at {}, {} of the "
                                     "fabric median {} (warn below "
                                     "{}, fail below {}): the job's all-reduce waits for it{}",
                                     leader->who->node, with_unit(link->value, "GB/s"), format_number(fraction),
                                     with_unit(median, "GB/s"), format_number(settings.scaling_link_warn()),
                                     format_number(settings.scaling_link_fail()), job ? "; " + job_line(names, *job) : "");
        findings.push_back(std::move(finding));
    }
    return findings;
}

// An efficiency below its prediction that no slow rank or link explains.
std::optional<Finding> unexplained_job_shortfall(const ScalingDeclaration& names, const std::vector<RankFigures>& ranks,
                                                 const JobFigures& job, const AnalysisSettings& settings) {
    const double band = 1.0 - margin(names, ranks, 1.0 - settings.scaling_shortfall_warn(), settings);
    if (!(job.predicted > 0.0) || job.efficiency / job.predicted >= band) return std::nullopt;
    const RankFigures& first = ranks.front();
    Finding finding = make_metric_finding(*first.who, first.test->key, *finite_metric(*first.test, names.job_efficiency),
                                          Level::warn, "", FindingSource::scaling);
    finding.code = ReasonCode::scaling_shortfall;
    finding.reference = job.predicted;
    finding.bound = job.predicted * band;
    finding.evidence = Evidence::figure;
    finding.reason = fmt::format("scaling below its prediction: {}, {} of the prediction (warn below {}), and no rank is "
                                 "slow alone and no node's link "
                                 "slow: {}",
                                 job_line(names, job), format_number(job.efficiency / job.predicted), format_number(band),
                                 names.unexplained_cause);
    return finding;
}

// Per node with several ranks: its efficiency against its own prediction.
std::vector<Finding> node_shortfalls(const ScalingDeclaration& names, const std::vector<RankFigures>& ranks,
                                     const std::vector<Finding>& explained, const AnalysisSettings& settings) {
    if (names.node_efficiency.empty()) return {};
    std::map<std::string, const RankFigures*> first_of_node;
    for (const RankFigures& rank : ranks) first_of_node.emplace(rank.who->node, &rank);
    std::vector<Finding> findings;
    const double band = 1.0 - margin(names, ranks, 1.0 - settings.scaling_shortfall_warn(), settings);
    for (const auto& entry : first_of_node) {
        const std::string& node = entry.first;  // named, not a structured binding: a lambda below captures it
        const RankFigures* rank = entry.second;
        const Metric* efficiency = finite_metric(*rank->test, names.node_efficiency);
        const Metric* predicted = finite_metric(*rank->test, names.predicted_node_efficiency);
        const Metric* bus = finite_metric(*rank->test, names.node_comm_gbs);
        if (!efficiency || !predicted || !bus || bus->value <= 0.0 || predicted->value <= 0.0) continue;
        const double fraction = efficiency->value / predicted->value;
        if (fraction >= band) continue;
        const bool has_slow_rank = std::any_of(explained.begin(), explained.end(), [&](const Finding& f) {
            return f.node == node && f.code == ReasonCode::slow_alone;
        });
        if (has_slow_rank) continue;
        Finding finding =
            make_metric_finding(*rank->who, rank->test->key, *efficiency, Level::warn, "", FindingSource::scaling);
        finding.code = ReasonCode::scaling_shortfall;
        finding.reference = predicted->value;
        finding.bound = predicted->value * band;
        finding.evidence = Evidence::figure;
        finding.reason = fmt::format("{}'s {} over its own ranks ran at {} of their step alone, {} of the {} predicted from "
                                     "its {} {} (warn below {}) "
                                     "with no rank slow alone",
                                     node, names.job_step, format_number(efficiency->value), format_number(fraction),
                                     format_number(predicted->value), names.comm_figure, with_unit(bus->value, "GB/s"),
                                     format_number(band));
        findings.push_back(std::move(finding));
    }
    return findings;
}

}  // namespace

std::vector<Finding> scaling_findings(const Observations& observations, const AnalysisSettings& settings) {
    std::vector<Finding> all;
    for (const ScalingDeclaration* declaration : scaling_declarations) {
        const ScalingDeclaration& names = *declaration;
        const std::vector<RankFigures> ranks = ranks_of(observations, names);
        if (ranks.empty()) continue;
        const std::optional<JobFigures> job = job_figures(names, ranks);
        std::vector<Finding> findings = slow_alone_findings(names, ranks, job, settings);
        append(findings, slow_link_findings(names, ranks, job, settings));
        if (job && findings.empty())
            if (auto shortfall = unexplained_job_shortfall(names, ranks, *job, settings))
                findings.push_back(std::move(*shortfall));
        append(findings, node_shortfalls(names, ranks, findings, settings));
        append(all, std::move(findings));
    }
    return all;
}

}  // namespace shakedown::analysis
