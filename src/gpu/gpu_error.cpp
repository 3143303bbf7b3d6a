#include "gpu/gpu_error.hpp"

#include "core/session.hpp"

#include <fmt/format.h>

#include <filesystem>

namespace shakedown::gpu {

void throw_gpu_error(const char* library, const char* expression, const std::string& message, const char* file,
                     int line, Cause cause) {
    std::string text = fmt::format("{} error '{}' in {} ({}:{}, host {})", library, message, expression,
                                   std::filesystem::path(file).filename().string(), line, this_node_name());
    if (cause == Cause::configuration)
        text += ": this binary or driver does not fit the GPU (build for its architecture with "
                "CMAKE_CUDA_ARCHITECTURES, or update the driver)";
    throw GpuError(text, cause);
}

}  // namespace shakedown::gpu
