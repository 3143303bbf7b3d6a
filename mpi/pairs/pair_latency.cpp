#include "mpi/pairs/pair_latency.hpp"

#include "mpi/specs.hpp"

#include "mpi/pairs/pingpong.hpp"

#include <algorithm>
#include <numeric>

namespace shakedown::mpi {

SampleTable latency_sample_table() { return SampleTable(mpi_pingpong_spec().samples); }

LatencySweep run_latency_sweep(MPI_Comm comm, const comm::PairSweep& pairs, const LatencySweepSpec& spec,
                               SampleTable& samples) {
    LatencySweep sweep;
    pairs.for_each_turn([&](const comm::PairTurn& turn) {
        for (const auto bytes : spec.sizes) {
            const PingPongSpec kernel{bytes, spec.counts.for_size(bytes), spec.delay_s, spec.corrupt,
                                      std::max(1, spec.batch)};
            const auto outcome = ping_pong(comm, turn.peer, turn.initiator, kernel);
            if (outcome.mismatch) sweep.mismatches.push_back(outcome.mismatch->describe(turn));
            const std::vector<double> micros = outcome.half_round_trip_us();  // one per batch
            sweep.mine.push_back({turn.pair, turn.peer_world, bytes, stats::summarize(micros)});
            for (std::size_t index = 0; index < micros.size(); ++index) {
                const auto n = static_cast<double>(outcome.batch_iterations[index]);
                // seconds: the batch's round trips (twice the half round trips)
                samples.add_row({static_cast<double>(bytes), static_cast<double>(turn.peer_world),
                                 turn.intra_node() ? 1.0 : 0.0, static_cast<double>(index), 2.0 * micros[index] * n * 1e-6,
                                 micros[index]});
            }
        }
    });
    return sweep;
}

}  // namespace shakedown::mpi
