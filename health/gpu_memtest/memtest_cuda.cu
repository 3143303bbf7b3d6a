// GPU memory patterns over 64-bit words, after memtest86 and cuda_memtest: walking ones and
// zeros (the word's bit (i + pass) mod 64), address in address (each word holds its own device
// address), seeded random (splitmix64 of seed, pass and global word index: regenerated to verify,
// nothing kept on the host), and moving inversions (random P written, then one kernel verifies P
// and writes ~P in place, then ~P verified; the GPU's threads run in parallel, so "ascending" is
// per thread, not the strict order of the CPU algorithm). Each verify kernel counts mismatches
// and keeps the lowest and highest bad address with atomics.
#include "health/gpu_memtest/memtest_backend.hpp"

#include "gpu/cuda_owners.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>

namespace shakedown::health {
namespace {

constexpr int block = 256;

enum class Pattern : int { walking_ones = 0, walking_zeros = 1, address = 2, random = 3, moving_inversions = 4 };
constexpr const char* pattern_names[] = {"walking_ones", "walking_zeros", "address_in_address", "random", "moving_inversions"};

__host__ __device__ inline unsigned long long splitmix64(unsigned long long x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

__host__ __device__ inline unsigned long long expected_word(int pattern, const unsigned long long* word,
                                                            unsigned long long global_index, unsigned long long seed, int pass) {
    switch (pattern) {
        case 0: return 1ull << ((global_index + pass) % 64);
        case 1: return ~(1ull << ((global_index + pass) % 64));
        case 2: return reinterpret_cast<unsigned long long>(word);
        default: return splitmix64(seed ^ (static_cast<unsigned long long>(pass) << 48) ^ global_index);
    }
}

__global__ void write_kernel(unsigned long long* words, unsigned long long n, unsigned long long first_index, int pattern,
                             unsigned long long seed, int pass) {
    for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<unsigned long long>(gridDim.x) * blockDim.x)
        words[i] = expected_word(pattern, words + i, first_index + i, seed, pass);
}

struct DeviceTally {
    unsigned long long count;
    unsigned long long lowest;
    unsigned long long highest;
    unsigned long long expected;  // of the first word found (by whichever thread got there first)
    unsigned long long found;
};

// Verifies the pattern (inverted when `inverted`), and when `then_invert` writes its inverse back.
__global__ void verify_kernel(unsigned long long* words, unsigned long long n, unsigned long long first_index, int pattern,
                              unsigned long long seed, int pass, bool inverted, bool then_invert, DeviceTally* tally) {
    for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
        unsigned long long want = expected_word(pattern, words + i, first_index + i, seed, pass);
        if (inverted) want = ~want;
        const unsigned long long got = words[i];
        if (got != want) {
            const unsigned long long address = reinterpret_cast<unsigned long long>(words + i);
            if (atomicAdd(&tally->count, 1ull) == 0) {
                tally->expected = want;
                tally->found = got;
            }
            atomicMin(&tally->lowest, address);
            atomicMax(&tally->highest, address);
        }
        if (then_invert) words[i] = ~want;
    }
}

struct Chunk {
    unsigned long long* words = nullptr;
    unsigned long long count = 0;
    unsigned long long first_index = 0;
};

}  // namespace

MemtestOutcome run_gpu_memtest(const MemtestRequest& request) {
    const gpu::DeviceSelection select(request.device);
    MemtestOutcome outcome;
    std::size_t free_bytes = 0, total_bytes = 0;
    SHAKEDOWN_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    outcome.free_bytes = free_bytes;
    outcome.total_bytes = total_bytes;
    const auto target = static_cast<std::uint64_t>(static_cast<double>(free_bytes) * request.free_fraction);

    std::vector<Chunk> chunks;
    struct Release {
        std::vector<Chunk>& chunks;
        ~Release() {
            for (const Chunk& chunk : chunks) cudaFree(chunk.words);
        }
    } release{chunks};
    std::uint64_t allocated = 0;
    unsigned long long next_index = 0;
    while (allocated < target) {
        const std::uint64_t bytes = std::min<std::uint64_t>(request.chunk_bytes, target - allocated) & ~std::uint64_t{7};
        if (bytes == 0) break;
        void* memory = nullptr;
        if (cudaMalloc(&memory, bytes) != cudaSuccess) {
            (void)cudaGetLastError();  // out of memory near the limit: test what we have
            break;
        }
        chunks.push_back({static_cast<unsigned long long*>(memory), bytes / 8, next_index});
        next_index += bytes / 8;
        allocated += bytes;
    }
    outcome.tested_bytes = allocated;
    for (const char* name : pattern_names) outcome.patterns.emplace_back(name);
    if (chunks.empty()) return outcome;

    cudaDeviceProp props{};
    SHAKEDOWN_CUDA(cudaGetDeviceProperties(&props, request.device));
    const unsigned grid = static_cast<unsigned>(props.multiProcessorCount * 8);
    DeviceTally* tally = nullptr;
    SHAKEDOWN_CUDA(cudaMalloc(&tally, sizeof(DeviceTally)));
    struct FreeTally {
        DeviceTally* p;
        ~FreeTally() { cudaFree(p); }
    } free_tally{tally};

    const auto reset_tally = [&] {
        const DeviceTally start{0, std::numeric_limits<unsigned long long>::max(), 0, 0, 0};
        SHAKEDOWN_CUDA(cudaMemcpy(tally, &start, sizeof(start), cudaMemcpyHostToDevice));
    };
    const auto take_tally = [&](const char* pattern, int pass) {
        DeviceTally got{};
        SHAKEDOWN_CUDA(cudaMemcpy(&got, tally, sizeof(got), cudaMemcpyDeviceToHost));
        if (got.count > 0)
            outcome.mismatches.push_back({pattern, pass, got.count, got.lowest, got.highest, got.expected, got.found});
    };
    const auto plant = [&](int pass, int pattern) {
        // One bit of one word in the middle of the first chunk, once.
        if (!request.plant_corruption || pass != 0 || pattern != static_cast<int>(Pattern::random)) return;
        unsigned long long* word = chunks.front().words + chunks.front().count / 2;
        unsigned long long value = 0;
        SHAKEDOWN_CUDA(cudaMemcpy(&value, word, sizeof(value), cudaMemcpyDeviceToHost));
        value ^= 1ull << 17;
        SHAKEDOWN_CUDA(cudaMemcpy(word, &value, sizeof(value), cudaMemcpyHostToDevice));
    };

    const auto start = std::chrono::steady_clock::now();
    const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    for (int pass = 0; pass == 0 || elapsed() < request.duration_s; ++pass) {
        for (int pattern = 0; pattern < 5; ++pattern) {
            const bool inversions = pattern == static_cast<int>(Pattern::moving_inversions);
            const int generator = inversions ? static_cast<int>(Pattern::random) : pattern;
            const std::uint64_t seed = inversions ? splitmix64(request.seed + 1) : request.seed;
            for (const Chunk& chunk : chunks)
                write_kernel<<<grid, block>>>(chunk.words, chunk.count, chunk.first_index, generator, seed, pass);
            SHAKEDOWN_CUDA(cudaGetLastError());
            SHAKEDOWN_CUDA(cudaDeviceSynchronize());
            plant(pass, pattern);
            reset_tally();
            for (const Chunk& chunk : chunks)
                verify_kernel<<<grid, block>>>(chunk.words, chunk.count, chunk.first_index, generator, seed, pass, false,
                                               inversions, tally);
            SHAKEDOWN_CUDA(cudaGetLastError());
            SHAKEDOWN_CUDA(cudaDeviceSynchronize());
            take_tally(pattern_names[pattern], pass);
            double moved = 2.0 * static_cast<double>(allocated);  // one write, one read
            if (inversions) {
                reset_tally();
                for (const Chunk& chunk : chunks)
                    verify_kernel<<<grid, block>>>(chunk.words, chunk.count, chunk.first_index, generator, seed, pass, true,
                                                   false, tally);
                SHAKEDOWN_CUDA(cudaGetLastError());
                SHAKEDOWN_CUDA(cudaDeviceSynchronize());
                take_tally("moving_inversions (inverted)", pass);
                moved += 2.0 * static_cast<double>(allocated);  // the inverse written, then read
            }
            outcome.bytes_moved += moved;
        }
        outcome.passes = pass + 1;
    }
    outcome.seconds = elapsed();
    return outcome;
}

}  // namespace shakedown::health
