// cuSOLVER's status check and handle owner, shared by the GPU LU's two factorizations
// (lu_cuda.cu: getrf of the whole matrix; lu_cuda_lookahead.cu: getrf of each panel).
#pragma once

#include "gpu/gpu_error.hpp"

#include <cusolverDn.h>
#include <fmt/format.h>

namespace shakedown::kernels::lu {

inline void check_cusolver(cusolverStatus_t status, const char* expression, const char* file, int line) {
    if (status != CUSOLVER_STATUS_SUCCESS)
        gpu::throw_gpu_error("cuSOLVER", expression, fmt::format("status {}", static_cast<int>(status)), file, line);
}
#define SHAKEDOWN_CUSOLVER(expression) ::shakedown::kernels::lu::check_cusolver((expression), #expression, __FILE__, __LINE__)

class CusolverHandle {
public:
    CusolverHandle() { SHAKEDOWN_CUSOLVER(cusolverDnCreate(&handle_)); }
    ~CusolverHandle() { cusolverDnDestroy(handle_); }
    CusolverHandle(const CusolverHandle&) = delete;
    CusolverHandle& operator=(const CusolverHandle&) = delete;
    cusolverDnHandle_t get() const { return handle_; }

private:
    cusolverDnHandle_t handle_ = nullptr;
};

}  // namespace shakedown::kernels::lu
