#include "mpi/allpairs/shift_schedule.hpp"

#include "core/counter_hash.hpp"

#include <algorithm>
#include <numeric>

namespace shakedown::mpi {

std::vector<int> schedule_shifts(int ranks, std::optional<std::int64_t> peers, std::uint64_t seed) {
    std::vector<int> shifts;
    if (ranks < 2) return shifts;
    if (!peers || *peers >= ranks - 1) {
        shifts.resize(static_cast<std::size_t>(ranks - 1));
        std::iota(shifts.begin(), shifts.end(), 1);
        return shifts;
    }
    // The first ceil(peers/2) of a seeded Fisher-Yates shuffle of 1 .. (P-1)/2; peers < P-1
    // keeps that within the candidates, and s < P/2 keeps s and P-s apart.
    std::vector<int> candidates(static_cast<std::size_t>((ranks - 1) / 2));
    std::iota(candidates.begin(), candidates.end(), 1);
    const auto wanted = static_cast<std::size_t>((std::max<std::int64_t>(*peers, 1) + 1) / 2);
    for (std::size_t i = 0; i < wanted; ++i) {
        const std::size_t left = candidates.size() - i;
        const std::size_t pick = i + static_cast<std::size_t>(mix64(seed * 0x9E3779B97F4A7C15ull + i) % left);
        std::swap(candidates[i], candidates[pick]);
        shifts.push_back(candidates[i]);
        shifts.push_back(ranks - candidates[i]);
    }
    std::sort(shifts.begin(), shifts.end());
    return shifts;
}

}  // namespace shakedown::mpi
