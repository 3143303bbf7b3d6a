// Built when Kokkos is not: `backend: kokkos` is waived before this could be called.
#include "kernels/dgemm/dgemm_kokkos_device.hpp"

#include <stdexcept>

namespace shakedown::kernels {

std::unique_ptr<gemm::DgemmEngine> make_kokkos_device_dgemm(std::size_t, int) { throw std::runtime_error("built without Kokkos"); }

}  // namespace shakedown::kernels
