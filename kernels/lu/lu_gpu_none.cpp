// Built without CUDA: the GPU LU says so (the test waives itself before asking).
#include "kernels/lu/lu_engine.hpp"

#include <stdexcept>

namespace shakedown::kernels::lu {

std::unique_ptr<LuEngine> make_gpu_lu(int, std::size_t, GpuLuAlgorithm, int) { throw std::logic_error("built without CUDA"); }

bool gpu_lu_built() { return false; }

}  // namespace shakedown::kernels::lu
