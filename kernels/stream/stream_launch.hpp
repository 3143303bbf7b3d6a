// How the CUDA backend launches each STREAM kernel, as data: one row per kernel, chosen from
// measurements on an H200 (bench/gpu/kernel_probe.cu prints every candidate shape with its
// GB/s; change a row here when the probe says another shape is faster). No single shape is
// best for all five: one element per thread in blocks of 256 made triad fast but left dot at
// half occupancy (4 blocks of 256 per SM), which is why the rows differ.
#pragma once

#include "kernels/stream/stream_kernels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace shakedown::kernels {

struct StreamLaunchShape {
    StreamKernel kernel;
    int threads_per_block;
    // Doubles per load: 1 (double) or 2 (double2, 16-byte loads and stores). cudaMalloc returns
    // 256-byte aligned arrays and the kernels always start at element 0, so a misaligned vector
    // cannot happen; an odd length leaves one element that block 0 handles as a scalar.
    int vector_width;
    // Vectors per thread when the grid covers the array (1 or 2, block-strided so that every
    // load instruction of a warp stays contiguous); grid-stride shapes take 1.
    int vectors_per_thread;
    // 0: the grid covers the array, each thread its vectors once. k > 0: a fixed grid of k blocks
    // per SM walks the array in a grid-stride loop (dot needs this: one partial sum per block,
    // finished on the host, so the block count must stay small).
    int blocks_per_sm;
};

inline constexpr std::array<StreamLaunchShape, 5> stream_launch_table{{
    // H200, bench/gpu/kernel_probe (2^28 doubles): copy double2 x 256 threads 4254 GB/s against
    // 3907 for one double x 256 and 3916 for the best grid-stride double2; triad double2 x 256
    // 4363 (1 x 256: 4352).
    {StreamKernel::copy, 256, 2, 1, 0},
    {StreamKernel::scale, 256, 2, 1, 0},
    {StreamKernel::add, 256, 2, 1, 0},
    {StreamKernel::triad, 256, 2, 1, 0},
    // Dot reached 4383-4393 GB/s with 1024 threads x 4 blocks per SM (grid-stride, host finish)
    // and fell to ~3820 when it shared the element-wise kernels' 256 (both with double loads; the
    // row takes double2 loads as the element-wise rows do).
    {StreamKernel::dot, 1024, 2, 1, 4},
}};

inline const StreamLaunchShape& launch_shape(StreamKernel kernel) {
    for (const auto& row : stream_launch_table)
        if (row.kernel == kernel) return row;
    throw std::logic_error("stream kernel missing from the launch table");
}

// Blocks the shape launches for `elements` per array on a GPU with `sm_count` SMs (at least 1).
inline std::uint64_t launch_blocks(const StreamLaunchShape& shape, std::size_t elements, int sm_count) {
    if (shape.blocks_per_sm > 0) return static_cast<std::uint64_t>(shape.blocks_per_sm) * std::max(sm_count, 1);
    const std::uint64_t vectors = elements / static_cast<std::size_t>(shape.vector_width);
    const std::uint64_t per_block = static_cast<std::uint64_t>(shape.threads_per_block) * shape.vectors_per_thread;
    return std::max<std::uint64_t>(1, (vectors + per_block - 1) / per_block);
}

// "256 threads/block, double2 x1 per thread, grid covers the array (1048576 blocks)": for the trace.
inline std::string describe(const StreamLaunchShape& shape, std::size_t elements, int sm_count) {
    const std::string vector = shape.vector_width == 2 ? "double2" : "double";
    const std::uint64_t blocks = launch_blocks(shape, elements, sm_count);
    if (shape.blocks_per_sm > 0)
        return fmt::format("{} threads/block, {} loads, grid-stride over {} blocks/SM ({} blocks)",
                           shape.threads_per_block, vector, shape.blocks_per_sm, blocks);
    return fmt::format("{} threads/block, {} x{} per thread, grid covers the array ({} blocks)", shape.threads_per_block,
                       vector, shape.vectors_per_thread, blocks);
}

// Empty when the row is one the CUDA backend can launch, otherwise why not.
inline std::string launch_shape_problem(const StreamLaunchShape& shape) {
    const int threads = shape.threads_per_block;
    if (threads < 32 || threads > 1024 || threads % 32 != 0)
        return fmt::format("threads_per_block {} is not a multiple of 32 in 32..1024", threads);
    if (shape.vector_width != 1 && shape.vector_width != 2)
        return fmt::format("vector_width {} (1 or 2)", shape.vector_width);
    if (shape.vectors_per_thread != 1 && shape.vectors_per_thread != 2)
        return fmt::format("vectors_per_thread {} (1 or 2)", shape.vectors_per_thread);
    if (shape.blocks_per_sm < 0) return fmt::format("blocks_per_sm {} is negative", shape.blocks_per_sm);
    if (shape.blocks_per_sm > 0 && shape.vectors_per_thread != 1)
        return "grid-stride shapes take one vector per thread";
    if (shape.kernel == StreamKernel::dot && shape.blocks_per_sm == 0)
        return "dot needs a fixed grid (blocks_per_sm > 0): its partial sums are finished on the host";
    return {};
}

}  // namespace shakedown::kernels
