// Registering GPU memory with an HCA, the two ways there are: a dma-buf file descriptor from
// the CUDA driver (cuMemGetHandleForAddressRange) given to ibv_reg_dmabuf_mr, and plain
// ibv_reg_mr on the device pointer, which only works with the nvidia-peermem module loaded.
// The result says which worked, or exactly why neither did.
#pragma once

#include "ib/verbs/verbs_api.hpp"

#include <memory>
#include <string>

namespace shakedown::ib {

struct GpuRegistration {
    std::unique_ptr<MemoryRegion> region;  // null when neither path worked
    std::string path;                      // "dma-buf" or "peer-memory (nvidia-peermem)"
    std::string dmabuf_error;              // why dma-buf did not work; empty when it did
    std::string peer_memory_error;         // why ibv_reg_mr on GPU memory did not work; empty if not tried or worked
    std::string why_none() const;          // one line naming both failures
};

// `device_pointer` from cudaMalloc on `cuda_device`, `bytes` a multiple of the host page size.
GpuRegistration register_gpu_memory(ProtectionDomain& pd, int cuda_device, void* device_pointer, std::size_t bytes);

}  // namespace shakedown::ib
