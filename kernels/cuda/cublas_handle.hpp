// RAII owners for cuBLAS and cuBLASLt handles, and a status check that names the call.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>

#include <stdexcept>
#include <string>

namespace shakedown::kernels {

inline void cublas_check(cublasStatus_t status, const char* what) {
    if (status != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(std::string(what) + ": " + cublasGetStatusName(status) + " (" +
                                 cublasGetStatusString(status) + ")");
}

class CublasHandle {
public:
    CublasHandle() { cublas_check(cublasCreate(&handle_), "cublasCreate"); }
    ~CublasHandle() { cublasDestroy(handle_); }
    CublasHandle(const CublasHandle&) = delete;
    CublasHandle& operator=(const CublasHandle&) = delete;
    cublasHandle_t get() const { return handle_; }

private:
    cublasHandle_t handle_ = nullptr;
};

class CublasLtHandle {
public:
    CublasLtHandle() { cublas_check(cublasLtCreate(&handle_), "cublasLtCreate"); }
    ~CublasLtHandle() { cublasLtDestroy(handle_); }
    CublasLtHandle(const CublasLtHandle&) = delete;
    CublasLtHandle& operator=(const CublasLtHandle&) = delete;
    cublasLtHandle_t get() const { return handle_; }

private:
    cublasLtHandle_t handle_ = nullptr;
};

}  // namespace shakedown::kernels
