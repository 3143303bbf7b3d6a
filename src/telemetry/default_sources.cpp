#include "telemetry/gpu_health_telemetry.hpp"
#include "telemetry/gpu_telemetry.hpp"
#include "telemetry/host_telemetry.hpp"
#include "telemetry/nvme_health_telemetry.hpp"
#include "telemetry/pcie_aer_telemetry.hpp"
#include "telemetry/rdma_port_telemetry.hpp"
#include "telemetry/telemetry_source.hpp"

namespace shakedown {

std::vector<std::unique_ptr<TelemetrySource>> default_telemetry_sources(const std::filesystem::path& infiniband_sysfs_root,
                                                                        bool passive_health) {
    std::vector<std::unique_ptr<TelemetrySource>> sources;
    sources.push_back(std::make_unique<HostTelemetry>());
    // No NVML (no driver, no library) means no GPU telemetry: not an error on a CPU node.
    if (auto nvml = Nvml::load()) {
        const unsigned count = nvml->device_count();
        for (unsigned index = 0; index < count; ++index)
            if (auto device = nvml->device(index)) {
                sources.push_back(std::make_unique<GpuTelemetry>(nvml, *device));
                if (passive_health) sources.push_back(std::make_unique<GpuHealthTelemetry>(nvml, *device));
            }
    }
    // One source per RDMA port; no /sys/class/infiniband (no HCA, no driver) means none.
    for (auto& port : rdma_port_sources(infiniband_sysfs_root)) sources.push_back(std::move(port));
    // PCIe AER of the GPUs, HCAs, NVMe drives and their bridges; none without such devices.
    if (!passive_health) return sources;
    if (auto aer = pcie_aer_source(pci_sysfs_root())) sources.push_back(std::move(aer));
    // The NVMe drives' own health logs; none without a controller.
    if (auto nvme = nvme_health_source(nvme_sysfs_root(), device_nvme_log_reader())) sources.push_back(std::move(nvme));
    return sources;
}

}  // namespace shakedown
