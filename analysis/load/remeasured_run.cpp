#include "analysis/load/remeasured_run.hpp"

#include "comm/congestion_ring_columns.hpp"
#include "comm/link_matrix_columns.hpp"
#include "core/errors.hpp"
#include "stats/summary.hpp"

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

Remeasured::MatrixLinks inter_node_links(const LoadedRun& run, const SampleTable& matrix) {
    const auto src = matrix.column_index(link_matrix_columns::src);
    const auto dst = matrix.column_index(link_matrix_columns::dst);
    const auto intra = matrix.column_index(link_matrix_columns::intra_node);
    const auto bandwidth = matrix.column_index(link_matrix_columns::bandwidth_gbs);
    Remeasured::MatrixLinks links;
    if (!src || !dst || !bandwidth) return links;  // not the declared layout: nothing measured again
    std::map<NodePair, std::vector<double>> samples;
    std::map<NodePair, std::vector<double>> directed;
    for (const std::vector<double>& row : matrix.rows()) {
        if (intra && row[*intra] != 0.0) continue;
        const std::string& a = node_of_rank(run, row[*src]);
        const std::string& b = node_of_rank(run, row[*dst]);
        if (a.empty() || b.empty() || a == b || !std::isfinite(row[*bandwidth])) continue;
        samples[unordered(a, b)].push_back(row[*bandwidth]);
        directed[{a, b}].push_back(row[*bandwidth]);
    }
    for (const auto& [pair, values] : samples) links.link_gbs.emplace(pair, stats::median(values));
    for (const auto& [pair, values] : directed) links.directed_link_gbs.emplace(pair, stats::median(values));
    return links;
}

// A ring table of AGAIN with its rank columns turned into RUN's ranks (NaN: not one of AGAIN's).
SampleTable in_first_ranks(const SampleTable& table, const std::map<int, int>& first_rank_of) {
    namespace columns = congestion_ring_columns;
    SampleTable mapped(table.columns());
    std::vector<std::size_t> rank_columns;
    for (const auto name : {columns::rank, columns::previous_rank, columns::next_rank})
        if (const auto index = table.column_index(name)) rank_columns.push_back(*index);
    for (std::vector<double> row : table.rows()) {
        for (const std::size_t c : rank_columns) {
            const double rank = row[c];
            const auto found = std::isfinite(rank) && rank >= 0 && rank < 1e9 ? first_rank_of.find(static_cast<int>(rank))
                                                                             : first_rank_of.end();
            row[c] = found != first_rank_of.end() ? static_cast<double>(found->second) : std::nan("");
        }
        mapped.add_row(std::move(row));
    }
    return mapped;
}

}  // namespace

bool Remeasured::covers(const std::string& node, const std::string& test) const {
    const auto found = tests_by_node.find(node);
    return found != tests_by_node.end() && found->second.count(test) > 0;
}

std::optional<double> Remeasured::link(const std::string& matrix, const std::string& a, const std::string& b) const {
    const auto links = matrices.find(matrix);
    if (links == matrices.end()) return std::nullopt;
    const auto found = links->second.link_gbs.find(unordered(a, b));
    if (found == links->second.link_gbs.end()) return std::nullopt;
    return found->second;
}

std::optional<double> Remeasured::directed_link(const std::string& matrix, const std::string& from, const std::string& to) const {
    const auto links = matrices.find(matrix);
    if (links == matrices.end()) return std::nullopt;
    const auto found = links->second.directed_link_gbs.find({from, to});
    if (found == links->second.directed_link_gbs.end()) return std::nullopt;
    return found->second;
}

RemeasuredRun remeasure(const LoadedRun& first, const LoadedRun& again,
                        const std::map<std::string, SampleTable>& again_matrices,
                        const std::map<std::string, SampleTable>& again_ring_tables) {
    RemeasuredRun result{first, {again.manifest.run_id, {}, {}}, {}};
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
    for (const auto& [name, matrix] : again_matrices) result.remeasured.matrices.emplace(name, inter_node_links(again, matrix));
    for (const auto& [key, table] : again_ring_tables)
        result.ring_tables.emplace(key, in_first_ranks(table, first_rank_of));
    return result;
}

}  // namespace shakedown::analysis
