// What a GPU says about itself (for the spec-table lookup and derived nominals), and whether
// this binary was built with CUDA at all. CMake picks gpu_facts_cuda.cpp or gpu_facts_none.cpp.
#pragma once

#include <cstdint>
#include <string>

namespace shakedown::gpu {

struct GpuFacts {
    std::string name;  // "NVIDIA H200"
    int sm_count = 0;
    int compute_major = 0;
    int compute_minor = 0;
    double max_sm_clock_mhz = 0.0;
    double memory_clock_mhz = 0.0;
    int memory_bus_width_bits = 0;
    std::uint64_t memory_bytes = 0;
};

// True when this binary was built with CUDA (the GPU code of every family).
bool cuda_built();

// Asks the CUDA runtime about `device`; throws GpuError without CUDA.
GpuFacts query_gpu_facts(int device);

}  // namespace shakedown::gpu
