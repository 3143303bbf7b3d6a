// NVML loaded at run time. A node without libnvidia-ml.so.1 (or whose driver does not answer)
// simply has no NVML: Nvml::load() returns nullptr and callers skip GPU telemetry.
//
// Every query returns std::optional: a GPU may not support a counter (ECC off, no NVLink,
// restricted permissions), and one unsupported counter must not hide the others.
#pragma once

#include "telemetry/dynamic_library.hpp"
#include "telemetry/nvml_api.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shakedown {

class Nvml;

// A text fact NVML may decline to give: the text, or why there is none in one line
// ("nvmlDeviceGetSerial returned 3 (Not Supported)"). Never an empty text.
struct NvmlText {
    std::optional<std::string> text;
    std::string why;  // empty when `text` holds the answer
};

struct NvmlPcieLink {
    std::optional<unsigned> generation_current;  // may drop at idle: power saving, not damage
    std::optional<unsigned> generation_max;
    std::optional<unsigned> width_current;
    std::optional<unsigned> width_max;
};

// One GPU as NVML indexes it (PCI bus order; this is not the CUDA ordinal). Cheap to copy;
// valid while the Nvml it came from lives.
class NvmlDevice {
public:
    NvmlDevice(const Nvml& nvml, nvml_abi::Device handle, unsigned index)
        : nvml_(&nvml), handle_(handle), index_(index) {}

    unsigned index() const { return index_; }

    std::optional<std::string> name() const;
    std::optional<std::string> uuid() const;  // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
    std::optional<nvml_abi::PciInfo> pci_info() const;
    std::optional<std::string> compute_capability() const;  // "9.0"
    // The board's serial (as printed on it) and its VBIOS version: what tells a GPU sent back for
    // repair from the one that returned. Consumer boards and some drivers answer NOT_SUPPORTED.
    NvmlText serial() const;
    NvmlText vbios_version() const;  // "96.00.AF.00.01"

    std::optional<unsigned> temperature_c() const;
    std::optional<double> power_w() const;
    std::optional<double> power_limit_w() const;  // the enforced limit
    // Energy the GPU used since the driver loaded, joules (NVML counts millijoules): what a
    // window's energy is the difference of, without integrating sampled power.
    std::optional<double> total_energy_j() const;
    std::optional<unsigned> clock_mhz(nvml_abi::ClockType clock) const;
    std::optional<unsigned> max_clock_mhz(nvml_abi::ClockType clock) const;
    // Raw nvmlClocksEventReason* bitmask (the "throttle reasons" of older drivers).
    std::optional<std::uint64_t> clocks_event_reasons() const;
    std::optional<std::uint64_t> ecc_errors(nvml_abi::MemoryErrorType type,
                                            nvml_abi::EccCounterType counter) const;
    std::optional<nvml_abi::Utilization> utilization() const;
    std::optional<nvml_abi::Memory> memory() const;
    NvmlPcieLink pcie_link() const;
    // Active NVLink links (0 on a PCIe-only GPU); nullopt when NVML cannot say.
    std::optional<unsigned> nvlink_active_links() const;
    // PCI bus id (NVML's spelling, "00000000:1B:00.0") of the device at the far end of each
    // active NVLink link, one entry per link: a GPU peer, or an NVSwitch. Empty without NVLink.
    std::vector<std::string> nvlink_remote_bus_ids() const;
    // The closest common ancestor of this GPU and `other` on the PCIe tree.
    std::optional<nvml_abi::GpuTopologyLevel> common_ancestor(const NvmlDevice& other) const;

    nvml_abi::Device handle() const { return handle_; }
    const Nvml& nvml() const { return *nvml_; }

private:
    const Nvml* nvml_;
    nvml_abi::Device handle_;
    unsigned index_;
};

class Nvml {
public:
    static constexpr const char* default_library = "libnvidia-ml.so.1";

    // nullptr when the library is missing, lacks the required entry points, or nvmlInit fails
    // (no driver, no device). `why`, when given, receives the reason in one line.
    static std::shared_ptr<const Nvml> load(const std::string& library = default_library,
                                            std::string* why = nullptr);

    Nvml(const Nvml&) = delete;
    Nvml& operator=(const Nvml&) = delete;
    ~Nvml();  // nvmlShutdown, then the library is closed

    unsigned device_count() const;
    std::optional<NvmlDevice> device(unsigned index) const;
    std::optional<std::string> driver_version() const;
    std::string library_path() const { return library_.path(); }
    std::string error_text(nvml_abi::Return code) const;

    // The resolved entry points; optional ones are nullptr when this driver lacks them.
    struct Api {
        nvml_abi::InitFn init = nullptr;
        nvml_abi::ShutdownFn shutdown = nullptr;
        nvml_abi::ErrorStringFn error_string = nullptr;
        nvml_abi::SystemGetDriverVersionFn system_get_driver_version = nullptr;
        nvml_abi::DeviceGetCountFn device_get_count = nullptr;
        nvml_abi::DeviceGetHandleByIndexFn device_get_handle_by_index = nullptr;
        nvml_abi::DeviceGetNameFn device_get_name = nullptr;
        nvml_abi::DeviceGetUuidFn device_get_uuid = nullptr;
        nvml_abi::DeviceGetTextFn device_get_serial = nullptr;         // optional
        nvml_abi::DeviceGetTextFn device_get_vbios_version = nullptr;  // optional
        nvml_abi::DeviceGetPciInfoFn device_get_pci_info = nullptr;
        nvml_abi::DeviceGetCudaComputeCapabilityFn device_get_cuda_compute_capability = nullptr;
        nvml_abi::DeviceGetTemperatureFn device_get_temperature = nullptr;
        nvml_abi::DeviceGetMilliwattsFn device_get_power_usage = nullptr;
        nvml_abi::DeviceGetMilliwattsFn device_get_enforced_power_limit = nullptr;
        nvml_abi::DeviceGetEnergyFn device_get_total_energy = nullptr;  // optional (Volta and later)
        nvml_abi::DeviceGetClockFn device_get_clock_info = nullptr;
        nvml_abi::DeviceGetClockFn device_get_max_clock_info = nullptr;
        nvml_abi::DeviceGetReasonsFn device_get_clocks_event_reasons = nullptr;
        nvml_abi::DeviceGetTotalEccErrorsFn device_get_total_ecc_errors = nullptr;
        nvml_abi::DeviceGetUtilizationRatesFn device_get_utilization_rates = nullptr;
        nvml_abi::DeviceGetMemoryInfoFn device_get_memory_info = nullptr;
        nvml_abi::DeviceGetUintFn device_get_curr_pcie_link_generation = nullptr;
        nvml_abi::DeviceGetUintFn device_get_max_pcie_link_generation = nullptr;
        nvml_abi::DeviceGetUintFn device_get_curr_pcie_link_width = nullptr;
        nvml_abi::DeviceGetUintFn device_get_max_pcie_link_width = nullptr;
        nvml_abi::DeviceGetNvLinkStateFn device_get_nvlink_state = nullptr;
        nvml_abi::DeviceGetTopologyCommonAncestorFn device_get_topology_common_ancestor = nullptr;
        nvml_abi::DeviceGetNvLinkRemotePciInfoFn device_get_nvlink_remote_pci_info = nullptr;
        // Health (telemetry/gpu_health_telemetry.hpp); each optional.
        nvml_abi::DeviceGetRetiredPagesFn device_get_retired_pages_v2 = nullptr;
        nvml_abi::DeviceGetRetiredPagesV1Fn device_get_retired_pages = nullptr;
        nvml_abi::DeviceGetRetiredPagesPendingFn device_get_retired_pages_pending_status = nullptr;
        nvml_abi::DeviceGetRemappedRowsFn device_get_remapped_rows = nullptr;
        nvml_abi::DeviceGetRowRemapperHistogramFn device_get_row_remapper_histogram = nullptr;
        nvml_abi::DeviceGetUintFn device_get_pcie_replay_counter = nullptr;
        nvml_abi::DeviceGetNvLinkErrorCounterFn device_get_nvlink_error_counter = nullptr;
        nvml_abi::DeviceGetGpuFabricInfoFn device_get_gpu_fabric_info = nullptr;
        nvml_abi::EventSetCreateFn event_set_create = nullptr;
        nvml_abi::DeviceRegisterEventsFn device_register_events = nullptr;
        nvml_abi::EventSetWaitFn event_set_wait = nullptr;
        nvml_abi::EventSetFreeFn event_set_free = nullptr;
    };
    const Api& api() const { return api_; }

private:
    Nvml(DynamicLibrary library, Api api) : library_(std::move(library)), api_(api) {}

    DynamicLibrary library_;  // declared first: destroyed last, after nvmlShutdown ran
    Api api_;
};

}  // namespace shakedown
