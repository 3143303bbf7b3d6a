// Built when CMake found no CBLAS: the host training step waives itself (host_blas_built).
#include "kernels/train/host_blas.hpp"

#include <stdexcept>

namespace shakedown::kernels::train {

void host_gemm(bool, bool, std::int64_t, std::int64_t, std::int64_t, float, const float*, std::int64_t, const float*,
               std::int64_t, float, float*, std::int64_t) {
    throw std::logic_error("host_gemm: built without CBLAS");
}
void host_gemm(bool, bool, std::int64_t, std::int64_t, std::int64_t, double, const double*, std::int64_t,
               const double*, std::int64_t, double, double*, std::int64_t) {
    throw std::logic_error("host_gemm: built without CBLAS");
}
bool host_blas_built() { return false; }

}  // namespace shakedown::kernels::train
