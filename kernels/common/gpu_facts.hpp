// What a GPU says about itself, for the spec-table lookup and for derived nominals.
#pragma once

#include <cstdint>
#include <string>

namespace shakedown::kernels {

struct GpuFacts {
    std::string name;        // "NVIDIA H200"
    int sm_count = 0;
    int compute_major = 0;
    int compute_minor = 0;
    double max_sm_clock_mhz = 0.0;
    double memory_clock_mhz = 0.0;
    int memory_bus_width_bits = 0;
    std::uint64_t memory_bytes = 0;
};

// Asks the CUDA runtime about `device`; throws std::runtime_error without CUDA.
GpuFacts query_gpu_facts(int device);

}  // namespace shakedown::kernels
