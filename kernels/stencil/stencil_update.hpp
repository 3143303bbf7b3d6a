// The one cell update every backend applies, with one order of operations, so the host, the
// GPU and every decomposition compute the same numbers (the GPU may fuse the final
// multiply-add). Callable from host code, Kokkos lambdas and CUDA kernels.
#pragma once

#if defined(__CUDACC__)
#define SHAKEDOWN_HOST_DEVICE __host__ __device__
#else
#define SHAKEDOWN_HOST_DEVICE
#endif

namespace shakedown::kernels {

SHAKEDOWN_HOST_DEVICE inline double jacobi_update(double center, double xm, double xp, double ym, double yp, double zm,
                                                  double zp) {
    return 0.25 * center + 0.125 * (((((xm + xp) + ym) + yp) + zm) + zp);
}

// Bytes one cell update must move at least: read the current value, write the new one
// (neighbours come from cache); the stencil's memory-bandwidth bound is triad GB/s / this.
inline constexpr double stencil_bytes_per_cell = 2 * sizeof(double);

}  // namespace shakedown::kernels
