#include "core/gpu_runtime.hpp"

namespace shakedown {

int visible_gpu_count() { return 0; }
std::string gpu_runtime_version() { return "none (built without CUDA)"; }
std::optional<int> gpu_compute_capability(int) { return std::nullopt; }

}  // namespace shakedown
