// Bit-for-bit agreement of DGEMM results for `sdc_dgemm`: two runs of the same product on one
// device, and the checksums of the devices of one node. Plain functions without MPI or a GPU, so
// the unit test can feed them any disagreement.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::health {

// Where two results differ bit for bit: how many elements, and the first (column-major index).
struct BitDifference {
    std::size_t elements = 0;
    std::size_t first = 0;
    double first_value = 0.0;  // in the first result
    double other_value = 0.0;  // in the second
};
std::optional<BitDifference> bit_difference(const std::vector<double>& first, const std::vector<double>& second);

// FNV-1a over the bytes of every element: equal results give equal checksums on any device.
std::uint64_t result_checksum(const std::vector<double>& result);

// One rank's checksum on its node (nullopt: its own two runs disagreed, so it is not compared).
struct NodeChecksum {
    int rank = 0;
    std::string device;  // "GPU 0 (GPU-...)" or "host"
    std::optional<std::uint64_t> checksum;
};

// The ranks whose checksum differs from the one a strict majority of the compared ranks hold,
// each with a reason; when no checksum has a majority (two ranks that differ), every compared
// rank. Fewer than two compared ranks: none.
struct Disagreement {
    int rank = 0;
    std::string reason;
};
std::vector<Disagreement> node_disagreements(const std::vector<NodeChecksum>& node);

}  // namespace shakedown::health
