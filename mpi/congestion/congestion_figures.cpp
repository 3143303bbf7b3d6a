#include "mpi/congestion/congestion_figures.hpp"

#include "stats/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace shakedown::mpi {
namespace {

enum Field { measures, ring, previous, next, base_p50, base_p99, base_bw, cong_p50, cong_p99, cong_bw, rounds, field_count };
using Row = std::array<double, field_count>;

constexpr std::array<std::string_view, 3> statistics = {"latency_p50", "latency_p99", "bandwidth"};

// The median of each figure over `rows`, and the impact of each statistic from them.
std::array<double, 3> impact(const std::vector<const Row*>& rows, Row& medians) {
    for (int f = base_p50; f <= cong_bw; ++f) {
        std::vector<double> values;
        for (const Row* row : rows) values.push_back((*row)[static_cast<std::size_t>(f)]);
        medians[static_cast<std::size_t>(f)] = stats::median(values);
    }
    return {medians[cong_p50] / medians[base_p50], medians[cong_p99] / medians[base_p99],
            medians[base_bw] / medians[cong_bw]};
}

}  // namespace

void add_congestion_figures(TestResult& result, const TestSpec& spec, MPI_Comm comm,
                            const std::vector<comm::RankPlacement>& placement, const RankFigures& mine, int rings) {
    const auto per_rank = static_cast<std::size_t>(rings);
    std::vector<Row> own(per_rank, Row{});
    for (std::size_t k = 0; k < per_rank; ++k) {
        own[k][ring] = static_cast<double>(k);
        own[k][rounds] = mine.congestor_rounds;
        if (!mine.measures || k >= mine.rings.size()) continue;
        const RingFigures& f = mine.rings[k];
        own[k][measures] = 1.0;
        own[k][previous] = f.previous_world;
        own[k][next] = f.next_world;
        own[k][base_p50] = f.baseline.latency_p50_us;
        own[k][base_p99] = f.baseline.latency_p99_us;
        own[k][base_bw] = f.baseline.bandwidth_gbs;
        own[k][cong_p50] = f.congested.latency_p50_us;
        own[k][cong_p99] = f.congested.latency_p99_us;
        own[k][cong_bw] = f.congested.bandwidth_gbs;
    }
    std::vector<Row> rows(placement.size() * per_rank);
    MPI_Allgather(own.data(), static_cast<int>(per_rank * field_count), MPI_DOUBLE, rows.data(),
                  static_cast<int>(per_rank * field_count), MPI_DOUBLE, comm);
    int me = 0;
    MPI_Comm_rank(comm, &me);
    const auto rank_of_row = [&](std::size_t row) { return row / per_rank; };

    std::vector<const Row*> measuring;
    std::map<int, std::vector<const Row*>> by_node;
    std::map<int, int> first_measuring_of_node;
    double most_rounds = 0.0;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        most_rounds = std::max(most_rounds, rows[r][rounds]);
        if (rows[r][measures] == 0.0) continue;
        const auto& where = placement[rank_of_row(r)];
        measuring.push_back(&rows[r]);
        by_node[where.node_index].push_back(&rows[r]);
        first_measuring_of_node.emplace(where.node_index, static_cast<int>(rank_of_row(r)));
    }
    const auto name = [&](std::string_view quantity) { return fmt::format("{}.{}", spec.key, quantity); };
    const int node = placement[static_cast<std::size_t>(me)].node_index;
    if (const auto first = first_measuring_of_node.find(node);
        first != first_measuring_of_node.end() && first->second == me) {
        Row medians{};
        const auto factors = impact(by_node[node], medians);
        for (std::size_t s = 0; s < statistics.size(); ++s)
            result.add_metric(name(fmt::format("node_{}_impact", statistics[s])), factors[s]);
    }
    result.samples = SampleTable(spec.samples);  // congestion_ring_columns, in its order; rows on rank 0 only
    if (me != 0) return;
    Row medians{};
    const auto factors = impact(measuring, medians);
    for (std::size_t s = 0; s < statistics.size(); ++s)
        result.add_metric(name(fmt::format("{}_impact", statistics[s])), factors[s]);
    result.add_metric(name("baseline_latency_p50_us"), medians[base_p50]);
    result.add_metric(name("baseline_latency_p99_us"), medians[base_p99]);
    result.add_metric(name("baseline_bandwidth_gbs"), medians[base_bw]);
    result.add_metric(name("congested_latency_p50_us"), medians[cong_p50]);
    result.add_metric(name("congested_latency_p99_us"), medians[cong_p99]);
    result.add_metric(name("congested_bandwidth_gbs"), medians[cong_bw]);
    result.parameters["congestor_rounds"] = fmt::format("{:.0f}", most_rounds);
    result.parameters["rings"] = std::to_string(rings);
    for (std::size_t r = 0; r < rows.size(); ++r)
        if (rows[r][measures] != 0.0) {
            const auto& where = placement[rank_of_row(r)];
            result.samples.add_row({static_cast<double>(where.world_rank), static_cast<double>(where.node_index),
                                    rows[r][ring], rows[r][previous], rows[r][next], rows[r][base_p50], rows[r][base_p99],
                                    rows[r][base_bw], rows[r][cong_p50], rows[r][cong_p99], rows[r][cong_bw]});
        }
}

}  // namespace shakedown::mpi
