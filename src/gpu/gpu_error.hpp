// One error type for every GPU library (CUDA runtime and driver, cuBLAS, NCCL): the failed
// expression, the library's own words, file, line and host. The test runner turns it into
// status "error" for this rank, never a crash of the run. No CUDA header here, so code built
// without CUDA can name the type too.
#pragma once

#include <stdexcept>
#include <string>

namespace shakedown::gpu {

class GpuError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// "CUDA error 'cudaErrorMemoryAllocation: out of memory' in cudaMalloc(&data, bytes) (stream_cuda.cu:42, host gpu01)"
[[noreturn]] void throw_gpu_error(const char* library, const char* expression, const std::string& message,
                                  const char* file, int line);

}  // namespace shakedown::gpu
