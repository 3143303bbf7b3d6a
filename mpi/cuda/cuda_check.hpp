// CUDA and NCCL errors become exceptions carrying the failed expression, file, line and the
// library's own message; the test runner turns them into status "error" for this rank.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace shakedown::mpi {

class DeviceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_device_error(const char* library, const char* expression, const std::string& message,
                                     const char* file, int line);

inline void check_cuda(cudaError_t code, const char* expression, const char* file, int line) {
    if (code != cudaSuccess) throw_device_error("CUDA", expression, cudaGetErrorString(code), file, line);
}

}  // namespace shakedown::mpi

#define SHAKEDOWN_CUDA(expression) ::shakedown::mpi::check_cuda((expression), #expression, __FILE__, __LINE__)
