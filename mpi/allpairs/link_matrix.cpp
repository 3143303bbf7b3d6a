#include "mpi/allpairs/link_matrix.hpp"

#include "stats/summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace shakedown::mpi {
namespace {

constexpr double none = std::numeric_limits<double>::quiet_NaN();
constexpr int figures_per_kind = 6;

std::optional<double> present(double value) { return std::isnan(value) ? std::nullopt : std::optional(value); }

std::vector<Link> assemble(const std::vector<double>& gathered, int size, const std::vector<int>& shifts,
                           const std::vector<comm::RankPlacement>& placement) {
    // gathered: per rank, one latency per shift then one bandwidth per shift, toward (rank+k)%P
    const std::size_t rounds = shifts.size();
    std::vector<Link> links;
    links.reserve(static_cast<std::size_t>(size) * rounds);
    for (int rank = 0; rank < size; ++rank) {
        const double* row = gathered.data() + static_cast<std::size_t>(rank) * 2 * rounds;
        for (std::size_t i = 0; i < rounds; ++i) {
            Link link;
            link.src = rank;
            link.dst = (rank + shifts[i]) % size;
            link.intra_node = placement[static_cast<std::size_t>(link.src)].node_index ==
                              placement[static_cast<std::size_t>(link.dst)].node_index;
            link.latency_us = row[i];
            link.bandwidth_gbs = row[rounds + i];
            links.push_back(link);
        }
    }
    return links;
}

// Per rank and kind: job bw median, job latency median, rank bw min, rank bw median, rank latency
// max, rank bw max.
std::vector<double> per_rank_figures(const std::vector<Link>& links, int size) {
    std::vector<double> out(static_cast<std::size_t>(size) * 2 * figures_per_kind, none);
    for (const auto kind : link_kinds) {
        const bool intra = kind == LinkKind::intra_node;
        std::vector<double> bandwidths, latencies;
        std::vector<std::vector<double>> rank_bw(static_cast<std::size_t>(size)), rank_lat(static_cast<std::size_t>(size));
        for (const auto& link : links) {
            if (link.intra_node != intra) continue;
            bandwidths.push_back(link.bandwidth_gbs);
            latencies.push_back(link.latency_us);
            for (const int rank : {link.src, link.dst}) {
                rank_bw[static_cast<std::size_t>(rank)].push_back(link.bandwidth_gbs);
                rank_lat[static_cast<std::size_t>(rank)].push_back(link.latency_us);
            }
        }
        if (bandwidths.empty()) continue;
        const double job_bw = stats::summarize(bandwidths).median;
        const double job_lat = stats::summarize(latencies).median;
        for (int rank = 0; rank < size; ++rank) {
            double* f = out.data() +
                        (static_cast<std::size_t>(rank) * 2 + static_cast<std::size_t>(kind)) * figures_per_kind;
            f[0] = job_bw;
            f[1] = job_lat;
            const auto& bw = rank_bw[static_cast<std::size_t>(rank)];
            if (bw.empty()) continue;
            const auto mine = stats::summarize(bw);
            f[2] = mine.min;
            f[3] = mine.median;
            f[4] = stats::summarize(rank_lat[static_cast<std::size_t>(rank)]).max;
            f[5] = mine.max;
        }
    }
    return out;
}

}  // namespace

LinkMatrixResult gather_link_matrix(MPI_Comm comm, const RankMeasurements& mine,
                                    const std::vector<comm::RankPlacement>& placement) {
    int me = 0, size = 1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    std::vector<int> shifts = mine.shifts;
    if (shifts.empty())
        for (int k = 1; k < size; ++k) shifts.push_back(k);
    const auto rounds = shifts.size();
    std::vector<double> row(mine.latency_to_us);
    row.insert(row.end(), mine.bandwidth_to_gbs.begin(), mine.bandwidth_to_gbs.end());
    row.resize(2 * rounds, none);
    std::vector<double> gathered(me == 0 ? row.size() * static_cast<std::size_t>(size) : 0);
    MPI_Gather(row.data(), static_cast<int>(row.size()), MPI_DOUBLE, gathered.data(), static_cast<int>(row.size()),
               MPI_DOUBLE, 0, comm);

    LinkMatrixResult result;
    std::vector<double> all_figures;
    if (me == 0) {
        result.links = assemble(gathered, size, shifts, placement);
        all_figures = per_rank_figures(result.links, size);
    }
    double my_figures[2 * figures_per_kind];
    MPI_Scatter(all_figures.data(), 2 * figures_per_kind, MPI_DOUBLE, my_figures, 2 * figures_per_kind, MPI_DOUBLE, 0, comm);
    for (const auto kind : link_kinds) {
        const double* f = my_figures + static_cast<std::size_t>(kind) * figures_per_kind;
        result.figures[static_cast<std::size_t>(kind)] = {present(f[0]), present(f[1]), present(f[2]),
                                                          present(f[3]), present(f[4]), present(f[5])};
    }
    return result;
}

std::vector<Link> worst_links_first(std::vector<Link> links) {
    std::stable_sort(links.begin(), links.end(), [](const Link& a, const Link& b) {
        if (a.bandwidth_gbs != b.bandwidth_gbs) return a.bandwidth_gbs < b.bandwidth_gbs;
        return a.latency_us > b.latency_us;
    });
    return links;
}

}  // namespace shakedown::mpi
