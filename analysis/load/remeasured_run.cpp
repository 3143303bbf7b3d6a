#include "analysis/load/remeasured_run.hpp"

#include "comm/link_matrix_columns.hpp"
#include "core/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace shakedown::analysis {
namespace {

using NodePair = std::pair<std::string, std::string>;

NodePair unordered(std::string a, std::string b) {
    if (b < a) std::swap(a, b);
    return {std::move(a), std::move(b)};
}

// The node of a matrix row's rank, "" when the rank is not one of the run's.
const std::string& node_of_rank(const LoadedRun& run, double rank) {
    static const std::string none;
    if (!std::isfinite(rank) || rank < 0 || rank >= static_cast<double>(run.ranks.size())) return none;
    return run.ranks[static_cast<std::size_t>(rank)].node;
}

SampleTable merged_matrix(const LoadedRun& first, const LoadedRun& again, const SampleTable& first_matrix,
                          const SampleTable& again_matrix, const std::map<int, int>& first_rank_of) {
    const auto src = again_matrix.column_index(link_matrix_columns::src);
    const auto dst = again_matrix.column_index(link_matrix_columns::dst);
    const auto first_src = first_matrix.column_index(link_matrix_columns::src);
    const auto first_dst = first_matrix.column_index(link_matrix_columns::dst);
    if (!src || !dst || !first_src || !first_dst || again_matrix.columns().size() != first_matrix.columns().size())
        return first_matrix;  // not the declared layout: the rules' own check reports the first one
    std::set<NodePair> measured_again;
    SampleTable replacement(first_matrix.columns());
    for (std::vector<double> row : again_matrix.rows()) {
        const auto a = first_rank_of.find(static_cast<int>(row[*src]));
        const auto b = first_rank_of.find(static_cast<int>(row[*dst]));
        if (a == first_rank_of.end() || b == first_rank_of.end()) continue;
        measured_again.insert(unordered(node_of_rank(again, row[*src]), node_of_rank(again, row[*dst])));
        row[*src] = a->second;
        row[*dst] = b->second;
        replacement.add_row(std::move(row));
    }
    SampleTable merged(first_matrix.columns());
    for (const std::vector<double>& row : first_matrix.rows())
        if (!measured_again.count(unordered(node_of_rank(first, row[*first_src]), node_of_rank(first, row[*first_dst]))))
            merged.add_row(row);
    merged.append(replacement);
    return merged;
}

}  // namespace

bool Remeasured::covers(const std::string& node, const std::string& test) const {
    const auto found = tests_by_node.find(node);
    return found != tests_by_node.end() && found->second.count(test) > 0;
}

RemeasuredRun remeasure(const LoadedRun& first, const LoadedRun& again, const std::optional<SampleTable>& first_matrix,
                        const std::optional<SampleTable>& again_matrix) {
    RemeasuredRun result{first, {again.manifest.run_id, {}}, first_matrix};
    std::map<std::pair<std::string, int>, int> first_rank_at;
    for (const RankRecord& record : first.ranks) first_rank_at.emplace(std::pair{record.node, record.local_rank}, record.rank);
    std::map<int, int> first_rank_of;  // AGAIN's rank -> RUN's
    for (const RankRecord& record : again.ranks) {
        const auto match = first_rank_at.find({record.node, record.local_rank});
        if (match == first_rank_at.end())
            throw InputError(fmt::format("--confirmation {}: rank {} ran on node '{}' local rank {}, which {} does not have: "
                                         "a confirmation re-runs tests on the run's own nodes",
                                         again.dir.string(), record.rank, record.node, record.local_rank,
                                         first.dir.string()));
        first_rank_of.emplace(record.rank, match->second);
    }
    for (const std::string& test : again.manifest.tests)
        if (std::find(first.manifest.tests.begin(), first.manifest.tests.end(), test) == first.manifest.tests.end())
            throw InputError(fmt::format("--confirmation {}: test '{}' is not one of {}'s tests", again.dir.string(),
                                         test, first.dir.string()));

    for (const RankRecord& record : again.ranks) {
        if (!record.trace) continue;  // a rank of the confirmation that left nothing re-measured nothing
        RankRecord& target = result.run.ranks[static_cast<std::size_t>(first_rank_of.at(record.rank))];
        if (!target.trace) continue;
        for (const TestResult& measured : record.trace->tests) {
            if (measured.status == Status::waived) continue;
            auto& tests = target.trace->tests;
            const auto old = std::find_if(tests.begin(), tests.end(),
                                          [&](const TestResult& result) { return result.key == measured.key; });
            if (old == tests.end()) continue;
            *old = measured;
            result.remeasured.tests_by_node[record.node].insert(measured.key);
        }
    }
    if (first_matrix && again_matrix)
        result.link_matrix = merged_matrix(first, again, *first_matrix, *again_matrix, first_rank_of);
    return result;
}

}  // namespace shakedown::analysis
