// A message buffer in GPU memory for the shared ping-pong kernel: MPI sends straight from and
// into device memory; filling and checking go through a host copy, outside the timed window.
#pragma once

#include "gpu/cuda_owners.hpp"
#include "comm/message_buffer.hpp"

#include <vector>

namespace shakedown::mpi {

class DeviceMessageBuffer final : public comm::MessageBuffer {
public:
    explicit DeviceMessageBuffer(std::size_t bytes) : device_(bytes), staging_(bytes) {}
    void* data() override { return device_.get(); }
    std::size_t size() const override { return device_.bytes(); }
    void fill(std::uint64_t seed) override;
    std::optional<std::size_t> first_mismatch(std::uint64_t seed) const override;
    void flip_one_byte() override;

private:
    gpu::DeviceBuffer<std::byte> device_;
    mutable std::vector<std::byte> staging_;
};

}  // namespace shakedown::mpi
