// The few GPU-runtime facts the core needs. Implemented by gpu_runtime_cuda.cpp when CUDA is
// built and by gpu_runtime_none.cpp otherwise: CMake picks the file, not the preprocessor.
#pragma once

#include <string>

namespace shakedown {

int visible_gpu_count();          // respects CUDA_VISIBLE_DEVICES; 0 without a runtime or device
std::string gpu_runtime_version();  // "CUDA 13.0 (driver 13.0)" or "none"

}  // namespace shakedown
