// Which ring shifts one repetition of allpairs runs over P ranks (mpi/allpairs/ring_shift.hpp: in shift s
// every rank i measures toward (i+s)%P). Every shift 1..P-1 measures every ordered pair; at
// thousands of nodes that is thousands of rounds and a matrix of P x (P-1) rows on rank 0, so
// `peers` below P-1 samples instead: shifts s < P/2 drawn from `seed`, each with its mirror P-s,
// so every rank measures toward and hears from the same 2 x ceil(peers/2) distinct peers and each
// sampled link is measured in both directions, as in the full matrix (the analyzer's noise
// estimate needs both). The same (P, peers, seed) gives the same shifts on every rank.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace shakedown::mpi {

// Ascending. Every shift when `peers` is unset or at least P-1; none for P < 2.
std::vector<int> schedule_shifts(int ranks, std::optional<std::int64_t> peers, std::uint64_t seed);

}  // namespace shakedown::mpi
