// The GPU memory pattern test's device part (memtest_cuda.cu; C++17 for nvcc): allocate most of
// the GPU's free memory in chunks, write and verify patterns over every 64-bit word until the
// duration is spent (at least one full pass), and report every pattern's mismatches.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace shakedown::health {

struct MemtestRequest {
    int device = 0;                 // CUDA ordinal
    double free_fraction = 0.9;     // of the free memory at the start
    double duration_s = 10.0;       // keep passing over the patterns until this is spent
    std::uint64_t chunk_bytes = 1ull << 30;
    std::uint64_t seed = 1;         // the random and moving-inversion patterns
    bool plant_corruption = false;  // test-only: one bit of one word flipped between write and verify
};

// The mismatches of one pattern in one pass: how many words, and the range they lie in.
struct MemtestMismatch {
    std::string pattern;
    int pass = 0;
    std::uint64_t count = 0;
    std::uint64_t first_address = 0;  // device addresses of the lowest and highest bad word
    std::uint64_t last_address = 0;
    std::uint64_t expected = 0;       // at the first bad word
    std::uint64_t found = 0;
};

struct MemtestOutcome {
    std::uint64_t free_bytes = 0;    // cudaMemGetInfo at the start
    std::uint64_t total_bytes = 0;
    std::uint64_t tested_bytes = 0;  // allocated and tested
    int passes = 0;                  // full passes over every pattern
    double seconds = 0.0;
    double bytes_moved = 0.0;        // written plus read by the kernels
    std::vector<std::string> patterns;
    std::vector<MemtestMismatch> mismatches;
};

// Throws on CUDA errors.
MemtestOutcome run_gpu_memtest(const MemtestRequest& request);

}  // namespace shakedown::health
