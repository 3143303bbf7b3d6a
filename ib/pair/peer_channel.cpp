#include "ib/pair/peer_channel.hpp"

#include <climits>
#include <stdexcept>

namespace shakedown::ib {

void MpiPeerChannel::exchange(std::span<const std::byte> mine, std::span<std::byte> theirs) {
    constexpr int tag = 0x1b;  // a tag of its own: nothing else of the test is in flight on this pair
    if (mine.size() > INT_MAX || theirs.size() > INT_MAX) throw std::length_error("peer channel message too large");
    MPI_Sendrecv(mine.data(), static_cast<int>(mine.size()), MPI_BYTE, peer_, tag, theirs.data(),
                 static_cast<int>(theirs.size()), MPI_BYTE, peer_, tag, comm_, MPI_STATUS_IGNORE);
}

}  // namespace shakedown::ib
