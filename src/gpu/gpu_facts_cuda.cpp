// GPU facts from the CUDA runtime (the clock and memory-interface attributes left
// cudaDeviceProp in CUDA 13, so they are read as device attributes).
#include "gpu/gpu_facts.hpp"

#include "gpu/cuda_check.hpp"

namespace shakedown::gpu {

bool cuda_built() { return true; }

GpuFacts query_gpu_facts(int device) {
    GpuFacts facts;
    cudaDeviceProp props{};
    SHAKEDOWN_CUDA(cudaGetDeviceProperties(&props, device));
    facts.name = props.name;
    facts.sm_count = props.multiProcessorCount;
    facts.compute_major = props.major;
    facts.compute_minor = props.minor;
    facts.memory_bytes = props.totalGlobalMem;
    int value = 0;
    SHAKEDOWN_CUDA(cudaDeviceGetAttribute(&value, cudaDevAttrClockRate, device));
    facts.max_sm_clock_mhz = value * 1e-3;
    SHAKEDOWN_CUDA(cudaDeviceGetAttribute(&value, cudaDevAttrMemoryClockRate, device));
    facts.memory_clock_mhz = value * 1e-3;
    SHAKEDOWN_CUDA(cudaDeviceGetAttribute(&value, cudaDevAttrGlobalMemoryBusWidth, device));
    facts.memory_bus_width_bits = value;
    return facts;
}

}  // namespace shakedown::gpu
