#include "mpi/cuda/device_message_buffer.hpp"

#include "comm/payload.hpp"

namespace shakedown::mpi {

void DeviceMessageBuffer::fill(std::uint64_t seed) {
    comm::fill_payload(staging_, seed);
    SHAKEDOWN_CUDA(cudaMemcpy(device_.get(), staging_.data(), staging_.size(), cudaMemcpyHostToDevice));
}

std::optional<std::size_t> DeviceMessageBuffer::first_mismatch(std::uint64_t seed) const {
    SHAKEDOWN_CUDA(cudaMemcpy(staging_.data(), device_.get(), staging_.size(), cudaMemcpyDeviceToHost));
    return comm::first_mismatch(staging_, seed);
}

void DeviceMessageBuffer::flip_one_byte() {
    SHAKEDOWN_CUDA(cudaMemcpy(staging_.data(), device_.get(), staging_.size(), cudaMemcpyDeviceToHost));
    comm::flip_one_byte(staging_);
    SHAKEDOWN_CUDA(cudaMemcpy(device_.get(), staging_.data(), staging_.size(), cudaMemcpyHostToDevice));
}

}  // namespace shakedown::mpi
