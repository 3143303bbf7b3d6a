// Built when CUDA is not: nothing can ask a GPU, and the waivers keep anything from trying.
#include "gpu/gpu_facts.hpp"

#include "gpu/gpu_error.hpp"

namespace shakedown::gpu {

bool cuda_built() { return false; }
GpuFacts query_gpu_facts(int) { throw GpuError("built without CUDA"); }

}  // namespace shakedown::gpu
