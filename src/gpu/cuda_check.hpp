// CUDA runtime and cuBLAS status codes become GpuError with the call that failed:
// SHAKEDOWN_CUDA(cudaMalloc(&p, bytes)), SHAKEDOWN_CUBLAS(cublasCreate(&handle)).
#pragma once

#include "gpu/gpu_error.hpp"

#include <cuda_runtime_api.h>

#include <string>

namespace shakedown::gpu {

// Who must act on a CUDA error: the device's faults drain the node, the build's and the
// driver's are fixed by whoever installed them, the rest are software faults.
constexpr Cause cuda_error_cause(cudaError_t code) {
    switch (code) {
    case cudaErrorECCUncorrectable:
    case cudaErrorHardwareStackError:
    case cudaErrorNvlinkUncorrectable:
    case cudaErrorNoDevice:
        return Cause::hardware;
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidKernelImage:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorInsufficientDriver:
    case cudaErrorCallRequiresNewerDriver:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
        return Cause::configuration;
    default:
        return Cause::software;
    }
}

inline void check_cuda(cudaError_t code, const char* expression, const char* file, int line) {
    if (code != cudaSuccess)
        throw_gpu_error("CUDA", expression, std::string(cudaGetErrorName(code)) + ": " + cudaGetErrorString(code), file,
                        line, cuda_error_cause(code));
}

}  // namespace shakedown::gpu

#define SHAKEDOWN_CUDA(expression) ::shakedown::gpu::check_cuda((expression), #expression, __FILE__, __LINE__)

// After a kernel launch: the launch's own error, named by what was launched.
#define SHAKEDOWN_CUDA_LAUNCH(what) ::shakedown::gpu::check_cuda(cudaGetLastError(), (what), __FILE__, __LINE__)
