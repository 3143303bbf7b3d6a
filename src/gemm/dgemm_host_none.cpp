// Built when Kokkos is not: host DGEMM (KokkosKernels' BLAS) waives itself, and says why if
// called anyway.
#include "gemm/dgemm_engine.hpp"

#include <stdexcept>

namespace shakedown::gemm {

std::unique_ptr<DgemmEngine> make_host_dgemm(std::size_t) { throw std::runtime_error("built without Kokkos"); }

}  // namespace shakedown::gemm
