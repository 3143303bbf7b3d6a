#include "mpi/message_buffer.hpp"

#include "mpi/payload.hpp"

namespace shakedown::mpi {

void HostBuffer::fill(std::uint64_t seed) { fill_payload(bytes_, seed); }

std::optional<std::size_t> HostBuffer::first_mismatch(std::uint64_t seed) const {
    return mpi::first_mismatch(bytes_, seed);
}

void HostBuffer::flip_one_byte() { mpi::flip_one_byte(bytes_); }

}  // namespace shakedown::mpi
