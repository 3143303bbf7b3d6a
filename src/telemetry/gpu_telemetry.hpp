// One GPU's state over time through NVML: temperature, power against its limit, clocks, the
// clocks-event (throttle) reasons as the raw bitmask plus one 0/1 column per reason the
// analyzer explains shortfalls with, ECC totals and utilisation.
#pragma once

#include "telemetry/nvml.hpp"
#include "telemetry/telemetry_source.hpp"

#include <memory>

namespace shakedown {

class GpuTelemetry : public TelemetrySource {
public:
    GpuTelemetry(std::shared_ptr<const Nvml> nvml, NvmlDevice device);

    std::string device() const override;  // "gpu<NVML index>"
    std::vector<SampleTable::Column> columns() const override;
    std::vector<double> sample() override;
    std::map<std::string, std::string> attributes() const override;  // name, uuid, pci_bus_id

private:
    std::shared_ptr<const Nvml> nvml_;  // keeps NVML initialised while the device is sampled
    NvmlDevice device_;
};

}  // namespace shakedown
