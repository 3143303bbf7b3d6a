#include "core/gpu_runtime.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

namespace shakedown {

int visible_gpu_count() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();  // no driver or no device: clear the sticky error, report none
        return 0;
    }
    return count;
}

std::optional<int> gpu_compute_capability(int device) {
    int major = 0;
    int minor = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return std::nullopt;
    }
    return 10 * major + minor;
}

std::string gpu_runtime_version() {
    int runtime = 0;
    int driver = 0;
    cudaRuntimeGetVersion(&runtime);
    if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
    return fmt::format("CUDA runtime {}.{} (driver {}.{})", runtime / 1000, (runtime % 1000) / 10, driver / 1000,
                       (driver % 1000) / 10);
}

}  // namespace shakedown
