// The stencil's z-march as a functor for a Kokkos MDRange over (i, j, z chunk) on a device:
// each work item walks `chunk` planes along z with the cells below, at and above it in
// registers, so every plane is read from memory once, as the native CUDA z-march does
// (stencil_kernels.cuh). Raw restrict pointers and Index (int where the allocation allows)
// instead of View accessors: 64-bit index arithmetic and Kokkos' own tiling of a 3-D MDRange
// held the Kokkos stencil at 0.38-0.58 of its bound on an H200 (bench/gpu/kokkos_probe.cpp).
// The x range of the policy starts at a line start in DeviceLayout (cell 1 + 16 m) at or before
// lo_x (threads before lo_x idle), so a warp's 32 cells are whole 128-byte lines.
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

}  // namespace shakedown::kernels
