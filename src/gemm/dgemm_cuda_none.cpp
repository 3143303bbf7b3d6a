// Built when CUDA is not: the waivers keep anything from asking for a GPU DGEMM.
#include "gemm/dgemm_engine.hpp"

#include <stdexcept>

namespace shakedown::gemm {

std::unique_ptr<DgemmEngine> make_cuda_dgemm(std::size_t, int) { throw std::runtime_error("built without CUDA"); }

}  // namespace shakedown::gemm
