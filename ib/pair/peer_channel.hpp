// The side channel two RC endpoints use to trade connection data and to line up the phases
// of a measurement: MPI between ranks in a real run, an in-process pair in the fake tests.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <span>
#include <type_traits>

namespace shakedown::ib {

class PeerChannel {
public:
    virtual ~PeerChannel() = default;
    // Both sides call it with spans of the same size: mine goes to the peer, theirs is filled.
    virtual void exchange(std::span<const std::byte> mine, std::span<std::byte> theirs) = 0;

    void barrier() { exchange({}, {}); }

    template <typename T>
    T swap(const T& mine) {
        static_assert(std::is_trivially_copyable_v<T>, "only plain data crosses the channel");
        T theirs{};
        exchange(std::as_bytes(std::span(&mine, 1)), std::as_writable_bytes(std::span(&theirs, 1)));
        return theirs;
    }
};

// MPI_Sendrecv with `peer` in `comm` (which must outlive the channel).
class MpiPeerChannel final : public PeerChannel {
public:
    MpiPeerChannel(MPI_Comm comm, int peer) : comm_(comm), peer_(peer) {}
    void exchange(std::span<const std::byte> mine, std::span<std::byte> theirs) override;

private:
    MPI_Comm comm_;
    int peer_;
};

}  // namespace shakedown::ib
