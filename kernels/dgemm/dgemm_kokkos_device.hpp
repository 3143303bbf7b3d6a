// `backend: kokkos` for dgemm_fp64 on a GPU: KokkosBlas::gemm on Kokkos::Cuda views, which
// Kokkos Kernels hands to cuBLAS (its cuBLAS TPL), so the figure is what a Kokkos application's
// DGEMM gets on the device.
#pragma once

#include "gemm/dgemm_engine.hpp"

#include <cstddef>
#include <memory>

namespace shakedown::kernels {

// On `device` (the one Kokkos was initialised on); throws std::runtime_error when this Kokkos
// has no CUDA backend or Kokkos is not built.
std::unique_ptr<gemm::DgemmEngine> make_kokkos_device_dgemm(std::size_t n, int device);

}  // namespace shakedown::kernels
