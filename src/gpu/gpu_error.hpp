// One error type for every GPU library (CUDA runtime and driver, cuBLAS, NCCL): the failed
// expression, the library's own words, file, line and host. The test runner turns it into
// status "error" for this rank, never a crash of the run. No CUDA header here, so code built
// without CUDA can name the type too.
#pragma once

#include "core/errors.hpp"

#include <string>

namespace shakedown::gpu {

// Its cause says who must act (core/cause.hpp): the device (an uncorrectable ECC error, a GPU
// gone), the configuration (no code in this binary for the GPU, a driver too old), else the
// software.
class GpuError : public CausedError {
public:
    explicit GpuError(const std::string& what, Cause cause = Cause::software) : CausedError(what, cause) {}
};

// "CUDA error 'cudaErrorMemoryAllocation: out of memory' in cudaMalloc(&data, bytes) (stream_cuda.cu:42, host gpu01)"
[[noreturn]] void throw_gpu_error(const char* library, const char* expression, const std::string& message,
                                  const char* file, int line, Cause cause = Cause::software);

}  // namespace shakedown::gpu
