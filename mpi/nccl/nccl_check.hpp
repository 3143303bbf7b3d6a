// NCCL errors become DeviceError exceptions with the expression, file, line and NCCL's text
// (plus its last error message, which names the failing transport or peer).
#pragma once

#include "mpi/cuda/cuda_check.hpp"

#include <nccl.h>

#include <string>

namespace shakedown::mpi {

inline void check_nccl(ncclResult_t code, const char* expression, const char* file, int line) {
    if (code == ncclSuccess || code == ncclInProgress) return;
    std::string message = ncclGetErrorString(code);
    if (const char* last = ncclGetLastError(nullptr); last != nullptr && *last != '\0') message += std::string(": ") + last;
    throw_device_error("NCCL", expression, message, file, line);
}

}  // namespace shakedown::mpi

#define SHAKEDOWN_NCCL(expression) ::shakedown::mpi::check_nccl((expression), #expression, __FILE__, __LINE__)
