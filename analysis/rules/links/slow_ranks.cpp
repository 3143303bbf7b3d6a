#include "analysis/rules/links/slow_ranks.hpp"

#include "mpi/collectives/mpi_coll_names.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>

namespace shakedown::analysis {
namespace {

std::optional<double> metric_value(const TestResult& test, std::string_view name) {
    for (const Metric& metric : test.metrics)
        if (metric.name == name && std::isfinite(metric.value)) return metric.value;
    return std::nullopt;
}

}  // namespace

std::string rank_label(const Finding& finding) {
    return finding.gpu ? fmt::format("rank {} ({}, GPU {})", finding.rank, finding.node, *finding.gpu)
                       : fmt::format("rank {} ({})", finding.rank, finding.node);
}

std::vector<Finding> slow_rank_findings(const Observations& observations, const AnalysisSettings& settings) {
    // Rank 0's view: which rank was the slowest, for the evidence line.
    std::optional<double> slowest_rank;
    std::optional<double> slowest_ratio;
    if (const TestResult* test = observations.test_of(0, std::string(mpi::mpi_coll_names::key))) {
        slowest_rank = metric_value(*test, mpi::mpi_coll_names::slowest_rank);
        slowest_ratio = metric_value(*test, mpi::mpi_coll_names::slowest_rank_ratio);
    }

    std::vector<Finding> findings;
    for (const TestRow& row : observations.tests()) {
        if (row.test->key != mpi::mpi_coll_names::key || row.test->status == Status::waived) continue;
        const auto ratio = metric_value(*row.test, mpi::mpi_coll_names::rank_time_ratio);
        if (!ratio || *ratio < settings.rank_ratio()) continue;
        Finding finding = make_finding(*row.who, row.test->key,
                                       *ratio >= settings.rank_fail_ratio() ? Level::fail : Level::warn, "",
                                       FindingSource::collective);
        finding.metric = mpi::mpi_coll_names::rank_time_ratio;
        finding.value = *ratio;
        finding.unit = "ratio";
        finding.reference = 1.0;
        finding.bound = finding.level == Level::fail ? settings.rank_fail_ratio() : settings.rank_ratio();
        finding.evidence = Evidence::figure;
        std::string evidence;
        if (slowest_rank && slowest_ratio)
            evidence =
                static_cast<int>(*slowest_rank) == row.who->rank
                    ? fmt::format("; rank 0 also named it the slowest rank ({:.2f}x)", *slowest_ratio)
                    : fmt::format("; the slowest was rank {} at {:.2f}x", static_cast<int>(*slowest_rank), *slowest_ratio);
        finding.reason = fmt::format("slow rank: {} spent {:.2f}x the other ranks' median time in the MPI collectives "
                                     "(warn from {:.2f}x, fail from {:.2f}x){}",
                                     rank_label(finding), *ratio, settings.rank_ratio(), settings.rank_fail_ratio(),
                                     evidence);
        findings.push_back(std::move(finding));
    }
    return findings;
}

}  // namespace shakedown::analysis
