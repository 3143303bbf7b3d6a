// Pinned host<->device copies on one GPU with the host buffers placed on a chosen NUMA node
// (hwloc_alloc_membind, then cudaHostRegister pins them there), timed with CUDA events, the
// data that came back compared in full with what was sent.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace shakedown::health {

struct CopyRequest {
    int device = 0;             // CUDA ordinal
    int numa_node = -1;         // host memory's NUMA node; -1: wherever the OS puts it
    std::uint64_t bytes = 0;
    int repetitions = 5;
    bool plant_corruption = false;  // test-only: one device byte changed before the copy back
};

struct CopyFigures {
    std::vector<double> h2d_gbs;  // one per repetition
    std::vector<double> d2h_gbs;
    std::string memory_found_on;  // NUMA node(s) hwloc says the host pages are on
    std::string validation_error; // empty when what came back equals what was sent
};

// Throws on CUDA or allocation errors.
CopyFigures measure_host_device_copies(const CopyRequest& request);

}  // namespace shakedown::health
