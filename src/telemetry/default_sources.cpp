#include "telemetry/gpu_telemetry.hpp"
#include "telemetry/host_telemetry.hpp"
#include "telemetry/telemetry_source.hpp"

namespace shakedown {

std::vector<std::unique_ptr<TelemetrySource>> default_telemetry_sources() {
    std::vector<std::unique_ptr<TelemetrySource>> sources;
    sources.push_back(std::make_unique<HostTelemetry>());
    // No NVML (no driver, no library) means no GPU telemetry: not an error on a CPU node.
    if (auto nvml = Nvml::load()) {
        const unsigned count = nvml->device_count();
        for (unsigned index = 0; index < count; ++index)
            if (auto device = nvml->device(index))
                sources.push_back(std::make_unique<GpuTelemetry>(nvml, *device));
    }
    return sources;
}

}  // namespace shakedown
