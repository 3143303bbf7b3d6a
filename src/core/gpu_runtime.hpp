// The few GPU-runtime facts the core needs. Implemented by gpu_runtime_cuda.cpp when CUDA is
// built and by gpu_runtime_none.cpp otherwise: CMake picks the file, not the preprocessor.
#pragma once

#include <optional>
#include <string>

namespace shakedown {

int visible_gpu_count();          // respects CUDA_VISIBLE_DEVICES; 0 without a runtime or device
std::string gpu_runtime_version();  // "CUDA 13.0 (driver 13.0)" or "none"
// 10 * major + minor of visible device `device` (90 for an H100); nothing without a runtime.
std::optional<int> gpu_compute_capability(int device);

}  // namespace shakedown
