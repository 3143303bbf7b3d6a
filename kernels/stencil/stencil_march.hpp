// The stencil's z-march as a functor for a Kokkos MDRange over (i, j, z chunk) on a device:
// each work item walks `chunk` planes along z with the cells below, at and above it in
// registers, so every plane is read from memory once, as the native CUDA z-march does
// (stencil_kernels.cuh). Raw restrict pointers and Index (int where the allocation allows)
// instead of View accessors: 64-bit index arithmetic and Kokkos' own tiling of a 3-D MDRange
// held the Kokkos stencil at 0.38-0.58 of its bound on an H200 (bench/gpu/kokkos_probe.cpp).
// The x range of the policy starts at a line start in DeviceLayout (cell 1 + 16 m) at or before
// lo_x (threads before lo_x idle), so a warp's 32 cells are whole 128-byte lines.
// StencilMarchPairs does the same for two adjacent x cells per work item (see there).
#pragma once

#include "kernels/stencil/stencil_update.hpp"

#if defined(__CUDACC__)
#define SHAKEDOWN_RESTRICT __restrict__
#else
#define SHAKEDOWN_RESTRICT
#endif

namespace shakedown::kernels {

template <class Index>
struct StencilMarch {
    const double* SHAKEDOWN_RESTRICT u;  // cell (0, 0, 0) of the current field
    double* SHAKEDOWN_RESTRICT v;        // the same cell of the next field
    Index row, plane;
    int lo_x, lo_z, hi_z, chunk;

    SHAKEDOWN_HOST_DEVICE void operator()(const int i, const int j, const int z_chunk) const {
        if (i < lo_x) return;
        const int k_begin = lo_z + z_chunk * chunk;
        const int k_end = k_begin + chunk < hi_z ? k_begin + chunk : hi_z;
        Index c = Index(i) + row * Index(j) + plane * Index(k_begin);
        double below = read(c - plane), at = read(c);
#if defined(__CUDA_ARCH__)
#pragma unroll 4
#endif
        for (int k = k_begin; k < k_end; ++k) {
            const double above = read(c + plane);
            v[c] = jacobi_update(at, read(c - 1), read(c + 1), read(c - row), read(c + row), below, above);
            below = at;
            at = above;
            c += plane;
        }
    }

    // u through the read-only data path on a device: a restrict on a member pointer is not
    // promised to reach the loads (the native kernel's are kernel parameters), and without it
    // each plane's loads must wait for the previous plane's store to v, which might alias u.
    SHAKEDOWN_HOST_DEVICE double read(Index c) const {
#if defined(__CUDA_ARCH__)
        return __ldg(u + c);
#else
        return u[c];
#endif
    }
};

// Two adjacent x cells (i, i + 1, i odd) per work item, as the native zmarch_pairs_kernel:
// on the padded layout an odd cell starts 16 bytes (cell 1 starts a line), so the pair is one
// 16-byte load or store, half the memory instructions of StencilMarch for the same bytes; that
// took the native march from 0.82 to 0.94-0.97 of its bound. The x neighbours beyond the pair
// are loaded (they hit the lines the adjacent items just loaded): the native kernel takes them
// from the adjacent lanes by warp shuffles, but which lane holds which pair is Kokkos'
// mapping of the policy, not promised. The policy's first index is the pair p (cells
// 1 + 2p, 2 + 2p) from the line start at or before lo_x; a pair with one cell outside [lo_x,
// hi_x) loads both and stores the one inside. Same operands in the same order as StencilMarch:
// bitwise the same field.
template <class Index>
struct StencilMarchPairs {
#if defined(__CUDACC__)
    using Pair = double2;
#else
    struct alignas(16) Pair {
        double x, y;
    };
#endif
    const double* SHAKEDOWN_RESTRICT u;  // cell (0, 0, 0) of the current field (cell 1 16-byte aligned)
    double* SHAKEDOWN_RESTRICT v;
    Index row, plane;
    int lo_x, hi_x, lo_z, hi_z, chunk;

    SHAKEDOWN_HOST_DEVICE void operator()(const int p, const int j, const int z_chunk) const {
        const int i = 1 + 2 * p;
        const bool first_inside = i >= lo_x && i < hi_x;
        const bool second_inside = i + 1 >= lo_x && i + 1 < hi_x;
        if (!first_inside && !second_inside) return;
        const int k_begin = lo_z + z_chunk * chunk;
        const int k_end = k_begin + chunk < hi_z ? k_begin + chunk : hi_z;
        Index c = Index(i) + row * Index(j) + plane * Index(k_begin);
        Pair below = read2(c - plane), at = read2(c);
#if defined(__CUDA_ARCH__)
#pragma unroll 4
#endif
        for (int k = k_begin; k < k_end; ++k) {
            const Pair above = read2(c + plane);
            const Pair ym = read2(c - row), yp = read2(c + row);
            const double left = read(c - 1), right = read(c + 2);
            const double first = jacobi_update(at.x, left, at.y, ym.x, yp.x, below.x, above.x);
            const double second = jacobi_update(at.y, at.x, right, ym.y, yp.y, below.y, above.y);
            if (first_inside && second_inside) {
                write2(c, first, second);
            } else if (first_inside) {
                v[c] = first;
            } else {
                v[c + 1] = second;
            }
            below = at;
            at = above;
            c += plane;
        }
    }

    SHAKEDOWN_HOST_DEVICE Pair read2(Index c) const {
#if defined(__CUDA_ARCH__)
        return __ldg(reinterpret_cast<const double2*>(u + c));
#else
        return Pair{u[c], u[c + 1]};
#endif
    }
    SHAKEDOWN_HOST_DEVICE void write2(Index c, double first, double second) const {
#if defined(__CUDA_ARCH__)
        *reinterpret_cast<double2*>(v + c) = make_double2(first, second);
#else
        v[c] = first;
        v[c + 1] = second;
#endif
    }
    SHAKEDOWN_HOST_DEVICE double read(Index c) const {
#if defined(__CUDA_ARCH__)
        return __ldg(u + c);
#else
        return u[c];
#endif
    }
};

}  // namespace shakedown::kernels
