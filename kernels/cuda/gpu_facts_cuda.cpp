// GPU facts from the CUDA runtime (the clock and memory-interface attributes left
// cudaDeviceProp in CUDA 13, so they are read as device attributes).
#include "kernels/common/gpu_facts.hpp"

#include "kernels/cuda/cuda_check.hpp"

#include <cuda_runtime_api.h>

namespace shakedown::kernels {

GpuFacts query_gpu_facts(int device) {
    GpuFacts facts;
    cudaDeviceProp props{};
    cuda_check(cudaGetDeviceProperties(&props, device), "cudaGetDeviceProperties");
    facts.name = props.name;
    facts.sm_count = props.multiProcessorCount;
    facts.compute_major = props.major;
    facts.compute_minor = props.minor;
    facts.memory_bytes = props.totalGlobalMem;
    int value = 0;
    cuda_check(cudaDeviceGetAttribute(&value, cudaDevAttrClockRate, device), "cudaDeviceGetAttribute(clock)");
    facts.max_sm_clock_mhz = value * 1e-3;
    cuda_check(cudaDeviceGetAttribute(&value, cudaDevAttrMemoryClockRate, device), "cudaDeviceGetAttribute(memclock)");
    facts.memory_clock_mhz = value * 1e-3;
    cuda_check(cudaDeviceGetAttribute(&value, cudaDevAttrGlobalMemoryBusWidth, device), "cudaDeviceGetAttribute(bus)");
    facts.memory_bus_width_bits = value;
    return facts;
}

}  // namespace shakedown::kernels
