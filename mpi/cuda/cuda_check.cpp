#include "mpi/cuda/cuda_check.hpp"

#include "core/session.hpp"

#include <fmt/format.h>

namespace shakedown::mpi {

void throw_device_error(const char* library, const char* expression, const std::string& message, const char* file,
                        int line) {
    throw DeviceError(fmt::format("{} error '{}' in {} ({}:{}, host {})", library, message, expression, file, line,
                                  this_node_name()));
}

}  // namespace shakedown::mpi
