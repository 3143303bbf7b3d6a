#include "mpi/pair_latency.hpp"

#include "mpi/specs.hpp"

#include "mpi/pingpong.hpp"

#include <algorithm>
#include <numeric>

namespace shakedown::mpi {

SampleTable latency_sample_table() {
    return SampleTable(mpi_pingpong_spec().samples);
}

LatencySweep run_latency_sweep(MPI_Comm comm, const comm::PairSweep& pairs, const LatencySweepSpec& spec,
                               SampleTable& samples) {
    LatencySweep sweep;
    pairs.for_each_turn([&](const comm::PairTurn& turn) {
        for (const auto bytes : spec.sizes) {
            const PingPongSpec kernel{bytes, spec.counts.for_size(bytes), spec.delay_s, spec.corrupt};
            const auto outcome = ping_pong(comm, turn.peer, turn.initiator, kernel);
            if (outcome.mismatch) sweep.mismatches.push_back(outcome.mismatch->describe(turn));
            const std::vector<double> micros = outcome.half_round_trip_us();
            sweep.mine.push_back({turn.pair, turn.peer_world, bytes, stats::summarize(micros)});

            const auto batch = static_cast<std::size_t>(std::max(1, spec.batch));
            for (std::size_t begin = 0; begin < micros.size(); begin += batch) {
                const auto end = std::min(micros.size(), begin + batch);
                const double sum_us = std::accumulate(micros.begin() + begin, micros.begin() + end, 0.0);
                const auto n = static_cast<double>(end - begin);
                // seconds: the batch's round trips (twice the half round trips)
                samples.add_row({static_cast<double>(bytes), static_cast<double>(turn.peer_world),
                                 turn.intra_node() ? 1.0 : 0.0, static_cast<double>(begin / batch), 2.0 * sum_us * 1e-6,
                                 sum_us / n});
            }
        }
    });
    return sweep;
}

}  // namespace shakedown::mpi
