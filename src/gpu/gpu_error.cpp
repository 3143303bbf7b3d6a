#include "gpu/gpu_error.hpp"

#include "core/session.hpp"

#include <fmt/format.h>

#include <filesystem>

namespace shakedown::gpu {

void throw_gpu_error(const char* library, const char* expression, const std::string& message, const char* file,
                     int line) {
    throw GpuError(fmt::format("{} error '{}' in {} ({}:{}, host {})", library, message, expression,
                               std::filesystem::path(file).filename().string(), line, this_node_name()));
}

}  // namespace shakedown::gpu
