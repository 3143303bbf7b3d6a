#include "mpi/pair_latency.hpp"

#include "mpi/specs.hpp"

#include "mpi/pingpong.hpp"

#include <algorithm>
#include <numeric>

namespace shakedown::mpi {

SampleTable latency_sample_table() {
    return SampleTable(mpi_pingpong_spec().samples);
}

LatencySweep run_latency_sweep(MPI_Comm comm, const comm::PairRounds& rounds, const std::vector<comm::RankPlacement>& placement,
                               const LatencySweepSpec& spec, SampleTable& samples) {
    int me = 0;
    MPI_Comm_rank(comm, &me);
    LatencySweep sweep;
    for (const auto& round : rounds) {
        if (const auto role = comm::role_in(round, me)) {
            const int peer_world = placement[role->peer].world_rank;
            for (const auto bytes : spec.sizes) {
                const PingPongSpec kernel{bytes, spec.counts.for_size(bytes), spec.delay_s, spec.corrupt};
                const auto outcome = ping_pong(comm, role->peer, role->initiator, kernel);
                if (outcome.mismatch)
                    sweep.mismatches.push_back(outcome.mismatch->describe(
                        placement[role->pair.first].world_rank, placement[role->pair.second].world_rank,
                        placement[outcome.mismatch->detected_by].world_rank));
                std::vector<double> micros(outcome.half_round_trip_s.size());
                std::transform(outcome.half_round_trip_s.begin(), outcome.half_round_trip_s.end(), micros.begin(),
                               [](double s) { return s * 1e6; });
                sweep.mine.push_back({role->pair, peer_world, bytes, stats::summarize(micros)});

                const auto batch = static_cast<std::size_t>(std::max(1, spec.batch));
                for (std::size_t begin = 0; begin < micros.size(); begin += batch) {
                    const auto end = std::min(micros.size(), begin + batch);
                    const double sum_us = std::accumulate(micros.begin() + begin, micros.begin() + end, 0.0);
                    const auto n = static_cast<double>(end - begin);
                    // seconds: the batch's round trips (twice the half round trips)
                    samples.add_row({static_cast<double>(bytes), static_cast<double>(peer_world),
                                     role->pair.intra_node ? 1.0 : 0.0, static_cast<double>(begin / batch),
                                     2.0 * sum_us * 1e-6, sum_us / n});
                }
            }
        }
        MPI_Barrier(comm);  // rounds never overlap
    }
    return sweep;
}

}  // namespace shakedown::mpi
