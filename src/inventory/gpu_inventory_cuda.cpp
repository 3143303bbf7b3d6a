// GPUs as the CUDA runtime shows them to this rank (CUDA_VISIBLE_DEVICES applies), enriched
// with NVML's facts for the same UUID. Compiled when SHAKEDOWN_HAVE_CUDA.
#include "inventory/inventory_sections.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

namespace shakedown::inventory_detail {
namespace {

// NVML's spelling of a UUID: "GPU-" and 8-4-4-4-12 lowercase hex digits.
std::string uuid_text(const cudaUUID_t& uuid) {
    const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
    return fmt::format("GPU-{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-"
                       "{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
                       b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                       b[15]);
}

// CUDA 13 dropped clockRate, memoryClockRate from cudaDeviceProp: ask for the attributes.
int attribute(cudaDeviceAttr attribute, int device) {
    int value = 0;
    if (cudaDeviceGetAttribute(&value, attribute, device) != cudaSuccess) return 0;
    return value;
}

std::optional<NvmlDevice> nvml_device_with_uuid(const Nvml* nvml, const std::string& uuid) {
    if (nvml == nullptr) return std::nullopt;
    for (unsigned index = 0; index < nvml->device_count(); ++index)
        if (auto device = nvml->device(index); device && device->uuid() == uuid) return device;
    return std::nullopt;
}

}  // namespace

nlohmann::json gpu_section(const Nvml* nvml, std::string& runtime_error) {
    nlohmann::json gpus = nlohmann::json::array();
    int count = 0;
    if (const cudaError_t status = cudaGetDeviceCount(&count); status != cudaSuccess) {
        runtime_error = fmt::format("cudaGetDeviceCount: {}", cudaGetErrorString(status));
        (void)cudaGetLastError();  // clear the sticky error for later callers
        return gpus;
    }
    for (int device = 0; device < count; ++device) {
        cudaDeviceProp properties{};
        if (const cudaError_t status = cudaGetDeviceProperties(&properties, device); status != cudaSuccess) {
            gpus.push_back({{"index", device}, {"error", cudaGetErrorString(status)}});
            continue;
        }
        const std::string uuid = uuid_text(properties.uuid);
        nlohmann::json gpu{
            {"index", device},
            {"name", properties.name},
            {"uuid", uuid},
            {"pci_bus_id", pci_bus_id(static_cast<unsigned>(properties.pciDomainID),
                                      static_cast<unsigned>(properties.pciBusID),
                                      static_cast<unsigned>(properties.pciDeviceID))},
            {"sm_count", properties.multiProcessorCount},
            {"compute_capability", fmt::format("{}.{}", properties.major, properties.minor)},
            {"max_sm_clock_mhz", attribute(cudaDevAttrClockRate, device) / 1000.0},
            {"memory_clock_mhz", attribute(cudaDevAttrMemoryClockRate, device) / 1000.0},
            {"memory_bus_width_bits", attribute(cudaDevAttrGlobalMemoryBusWidth, device)},
            {"memory_bytes", properties.totalGlobalMem},
        };
        if (auto nvml_device = nvml_device_with_uuid(nvml, uuid)) gpu["nvml"] = nvml_gpu_facts(*nvml_device);
        gpus.push_back(std::move(gpu));
    }
    return gpus;
}

}  // namespace shakedown::inventory_detail
