// The stencil's CUDA kernels and the device layout they index, in one place for the product's
// backend (stencil_cuda.cu, which describes the design) and bench/gpu/stencil_probe.cu, which
// times these very kernels against its candidates and validates them bitwise.
// Internal linkage (unnamed namespace): every .cu that includes this compiles its own copy.
#pragma once

#include "kernels/stencil/stencil_device_layout.hpp"
#include "kernels/stencil/stencil_update.hpp"

#include <cuda_runtime.h>

#include <cstdint>

namespace shakedown::kernels {
namespace {

struct Box {  // cells [lo, hi) per dimension, local indices
    int lo[3];
    int hi[3];
};

// The z-march, one cell per thread (gpu_cells_per_thread 1). x tiles start at cell 1 (a line
// start) whatever box.lo[0] is; threads before it idle.
template <typename Index>
__global__ void zmarch_kernel(const double* __restrict__ u, double* __restrict__ v, Index row, Index plane, Box box, int chunk) {
    const int i = 1 + blockIdx.x * blockDim.x + threadIdx.x;
    const int j = box.lo[1] + blockIdx.y * blockDim.y + threadIdx.y;
    if (i < box.lo[0] || i >= box.hi[0] || j >= box.hi[1]) return;
    const int k_begin = box.lo[2] + blockIdx.z * chunk;
    const int k_end = min(k_begin + chunk, box.hi[2]);
    Index c = Index(i) + row * Index(j) + plane * Index(k_begin);
    double below = u[c - plane], at = u[c];
#pragma unroll 4
    for (int k = k_begin; k < k_end; ++k) {
        const double above = u[c + plane];
        v[c] = jacobi_update(at, u[c - 1], u[c + 1], u[c - row], u[c + row], below, above);
        below = at;
        at = above;
        c += plane;
    }
}

// The z-march with two adjacent x cells per thread (0.89 of triad at 512^3 where the one-cell
// z-march reached 0.82: H200, bench/gpu/stencil_probe).
// Thread t owns cells (i, i+1), i = 1 + 2t odd: on the padded layout every such pair is
// 16-byte aligned (lead 15, pitches multiples of 16), so the pair is one double2 load or
// store, half the memory instructions of one cell per thread for the same bytes. The x
// neighbours beyond the pair come from the adjacent lanes' pairs through warp shuffles;
// only where that lane has no pair in the box (the warp's first/last lane, the box edges)
// is the neighbour loaded. Needs blockDim.x a multiple of 32 (a warp is one row segment,
// so a row past the box drops whole warps and every lane left reaches the shuffles).
// Boxes of any x extent: a pair with one cell outside the box (odd widths, an interior
// starting at i = 2 next to an x neighbour) loads the pair and stores only its cell inside.
// Same operands in the same order as zmarch_kernel: bitwise the same field.
template <typename Index>
__global__ void zmarch_pairs_kernel(const double* __restrict__ u, double* __restrict__ v, Index row, Index plane, Box box,
                                    int chunk) {
    const int i = 1 + 2 * static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int j = box.lo[1] + blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= box.hi[1]) return;  // whole warps
    const bool first_inside = i >= box.lo[0] && i < box.hi[0];
    const bool second_inside = i + 1 >= box.lo[0] && i + 1 < box.hi[0];
    const bool loads = first_inside || second_inside;
    const int lane = threadIdx.x & 31;
    // The previous lane holds cell i-1 when its pair touches the box (i-1 >= lo); the next
    // lane holds cell i+2 when i+2 < hi.
    const bool load_left = first_inside && (lane == 0 || i - 1 < box.lo[0]);
    const bool load_right = second_inside && (lane == 31 || i + 2 >= box.hi[0]);
    const int k_begin = box.lo[2] + blockIdx.z * chunk;
    const int k_end = min(k_begin + chunk, box.hi[2]);
    Index c = Index(i) + row * Index(j) + plane * Index(k_begin);
    const double2 zero = make_double2(0.0, 0.0);
    const auto load2 = [&](Index offset) { return loads ? *reinterpret_cast<const double2*>(u + offset) : zero; };
    double2 below = load2(c - plane), at = load2(c);
#pragma unroll 4
    for (int k = k_begin; k < k_end; ++k) {
        const double2 above = load2(c + plane);
        const double2 ym = load2(c - row), yp = load2(c + row);
        double left = __shfl_up_sync(0xffffffffu, at.y, 1);
        double right = __shfl_down_sync(0xffffffffu, at.x, 1);
        if (load_left) left = u[c - 1];
        if (load_right) right = u[c + 2];
        double2 next;
        next.x = jacobi_update(at.x, left, at.y, ym.x, yp.x, below.x, above.x);
        next.y = jacobi_update(at.y, at.x, right, ym.y, yp.y, below.y, above.y);
        if (first_inside && second_inside)
            *reinterpret_cast<double2*>(v + c) = next;
        else if (first_inside)
            v[c] = next.x;
        else if (second_inside)
            v[c + 1] = next.y;
        below = at;
        at = above;
        c += plane;
    }
}

// A shell slab, one thread per cell counted i fastest: fits slabs one cell thin in any
// dimension (an x slab would leave 31 of 32 threads of an x-y tile idle).
template <typename Index>
__global__ void slab_kernel(const double* __restrict__ u, double* __restrict__ v, Index row, Index plane, Box box) {
    const unsigned ex = box.hi[0] - box.lo[0], ey = box.hi[1] - box.lo[1], ez = box.hi[2] - box.lo[2];
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ex * ey * ez) return;
    const Index i = box.lo[0] + t % ex, j = box.lo[1] + (t / ex) % ey, k = box.lo[2] + t / (ex * ey);
    const Index c = i + row * j + plane * k;
    v[c] = jacobi_update(u[c], u[c - 1], u[c + 1], u[c - row], u[c + row], u[c - plane], u[c + plane]);
}

// Copies between the layer i = `layer` and an x-face buffer (j fastest, then k); y and z
// faces need no kernel (rows of the field: pitched copies).
__global__ void x_face_kernel(double* u, double* buffer, DeviceLayout l, std::int64_t layer, bool into_buffer) {
    const std::int64_t j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
    const std::int64_t k = blockIdx.y * static_cast<std::int64_t>(blockDim.y) + threadIdx.y;
    if (j >= l.ny || k >= l.nz) return;
    const std::int64_t c = l.index(layer, j + 1, k + 1);
    if (into_buffer)
        buffer[j + l.ny * k] = u[c];
    else
        u[c] = buffer[j + l.ny * k];
}

}  // namespace
}  // namespace shakedown::kernels
