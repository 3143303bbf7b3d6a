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
    // cudaDriverGetVersion answers 0 where no driver is loaded (a CPU node running a CUDA build):
    // "no driver", never "driver 0.0".
    if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
    const std::string driver_text =
        driver > 0 ? fmt::format("driver {}.{}", driver / 1000, (driver % 1000) / 10) : std::string("no driver");
    return fmt::format("CUDA runtime {}.{} ({})", runtime / 1000, (runtime % 1000) / 10, driver_text);
}

}  // namespace shakedown
