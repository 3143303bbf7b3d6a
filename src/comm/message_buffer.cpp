#include "comm/message_buffer.hpp"

#include "comm/payload.hpp"

namespace shakedown::comm {

void HostBuffer::fill(std::uint64_t seed) { fill_payload(bytes_, seed); }

std::optional<std::size_t> HostBuffer::first_mismatch(std::uint64_t seed) const {
    return comm::first_mismatch(bytes_, seed);
}

void HostBuffer::flip_one_byte() { comm::flip_one_byte(bytes_); }

}  // namespace shakedown::comm
