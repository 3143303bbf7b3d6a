// Owners of cuBLAS and cuBLASLt handles, and the status check that names the call:
// SHAKEDOWN_CUBLAS(cublasDgemm(...)).
#pragma once

#include "gpu/gpu_error.hpp"

#include <cublasLt.h>
#include <cublas_v2.h>

#include <string>

namespace shakedown::gpu {

inline void check_cublas(cublasStatus_t status, const char* expression, const char* file, int line) {
    if (status != CUBLAS_STATUS_SUCCESS)
        throw_gpu_error("cuBLAS", expression,
                        std::string(cublasGetStatusName(status)) + ": " + cublasGetStatusString(status), file, line);
}

}  // namespace shakedown::gpu

#define SHAKEDOWN_CUBLAS(expression) ::shakedown::gpu::check_cublas((expression), #expression, __FILE__, __LINE__)

namespace shakedown::gpu {

class CublasHandle {
public:
    CublasHandle() { SHAKEDOWN_CUBLAS(cublasCreate(&handle_)); }
    ~CublasHandle() { cublasDestroy(handle_); }
    CublasHandle(const CublasHandle&) = delete;
    CublasHandle& operator=(const CublasHandle&) = delete;
    cublasHandle_t get() const { return handle_; }

private:
    cublasHandle_t handle_ = nullptr;
};

class CublasLtHandle {
public:
    CublasLtHandle() { SHAKEDOWN_CUBLAS(cublasLtCreate(&handle_)); }
    ~CublasLtHandle() { cublasLtDestroy(handle_); }
    CublasLtHandle(const CublasLtHandle&) = delete;
    CublasLtHandle& operator=(const CublasLtHandle&) = delete;
    cublasLtHandle_t get() const { return handle_; }

private:
    cublasLtHandle_t handle_ = nullptr;
};

}  // namespace shakedown::gpu
