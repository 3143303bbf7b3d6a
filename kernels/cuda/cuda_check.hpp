// CUDA and cuBLAS status codes become exceptions carrying the call that failed, so a
// broken GPU is a test "error" with its reason, never a crash of the whole run.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace shakedown::kernels {

inline void cuda_check(cudaError_t status, const char* what) {
    if (status != cudaSuccess)
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

}  // namespace shakedown::kernels
