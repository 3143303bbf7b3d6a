#include "telemetry/nvml.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace shakedown {
namespace {

using nvml_abi::Return;

constexpr const char* serial_symbol = "nvmlDeviceGetSerial";
constexpr const char* vbios_version_symbol = "nvmlDeviceGetVbiosVersion";

// Looks up each entry point by its exported (versioned) name.
Nvml::Api resolve(const DynamicLibrary& lib) {
    Nvml::Api api;
    api.init = lib.function<nvml_abi::InitFn>("nvmlInit_v2");
    api.shutdown = lib.function<nvml_abi::ShutdownFn>("nvmlShutdown");
    api.error_string = lib.function<nvml_abi::ErrorStringFn>("nvmlErrorString");
    api.system_get_driver_version = lib.function<nvml_abi::SystemGetDriverVersionFn>("nvmlSystemGetDriverVersion");
    api.device_get_count = lib.function<nvml_abi::DeviceGetCountFn>("nvmlDeviceGetCount_v2");
    api.device_get_handle_by_index =
        lib.function<nvml_abi::DeviceGetHandleByIndexFn>("nvmlDeviceGetHandleByIndex_v2");
    api.device_get_name = lib.function<nvml_abi::DeviceGetNameFn>("nvmlDeviceGetName");
    api.device_get_uuid = lib.function<nvml_abi::DeviceGetUuidFn>("nvmlDeviceGetUUID");
    api.device_get_serial = lib.function<nvml_abi::DeviceGetTextFn>(serial_symbol);
    api.device_get_vbios_version = lib.function<nvml_abi::DeviceGetTextFn>(vbios_version_symbol);
    api.device_get_pci_info = lib.function<nvml_abi::DeviceGetPciInfoFn>("nvmlDeviceGetPciInfo_v3");
    api.device_get_cuda_compute_capability =
        lib.function<nvml_abi::DeviceGetCudaComputeCapabilityFn>("nvmlDeviceGetCudaComputeCapability");
    api.device_get_temperature = lib.function<nvml_abi::DeviceGetTemperatureFn>("nvmlDeviceGetTemperature");
    api.device_get_power_usage = lib.function<nvml_abi::DeviceGetMilliwattsFn>("nvmlDeviceGetPowerUsage");
    api.device_get_enforced_power_limit =
        lib.function<nvml_abi::DeviceGetMilliwattsFn>("nvmlDeviceGetEnforcedPowerLimit");
    api.device_get_total_energy = lib.function<nvml_abi::DeviceGetEnergyFn>("nvmlDeviceGetTotalEnergyConsumption");
    api.device_get_clock_info = lib.function<nvml_abi::DeviceGetClockFn>("nvmlDeviceGetClockInfo");
    api.device_get_max_clock_info = lib.function<nvml_abi::DeviceGetClockFn>("nvmlDeviceGetMaxClockInfo");
    // Renamed in NVML API 12 (driver R535); older drivers only export the "throttle" name.
    api.device_get_clocks_event_reasons =
        lib.function<nvml_abi::DeviceGetReasonsFn>("nvmlDeviceGetCurrentClocksEventReasons");
    if (api.device_get_clocks_event_reasons == nullptr)
        api.device_get_clocks_event_reasons =
            lib.function<nvml_abi::DeviceGetReasonsFn>("nvmlDeviceGetCurrentClocksThrottleReasons");
    api.device_get_total_ecc_errors = lib.function<nvml_abi::DeviceGetTotalEccErrorsFn>("nvmlDeviceGetTotalEccErrors");
    api.device_get_utilization_rates =
        lib.function<nvml_abi::DeviceGetUtilizationRatesFn>("nvmlDeviceGetUtilizationRates");
    api.device_get_memory_info = lib.function<nvml_abi::DeviceGetMemoryInfoFn>("nvmlDeviceGetMemoryInfo");
    api.device_get_curr_pcie_link_generation =
        lib.function<nvml_abi::DeviceGetUintFn>("nvmlDeviceGetCurrPcieLinkGeneration");
    api.device_get_max_pcie_link_generation =
        lib.function<nvml_abi::DeviceGetUintFn>("nvmlDeviceGetMaxPcieLinkGeneration");
    api.device_get_curr_pcie_link_width = lib.function<nvml_abi::DeviceGetUintFn>("nvmlDeviceGetCurrPcieLinkWidth");
    api.device_get_max_pcie_link_width = lib.function<nvml_abi::DeviceGetUintFn>("nvmlDeviceGetMaxPcieLinkWidth");
    api.device_get_nvlink_state = lib.function<nvml_abi::DeviceGetNvLinkStateFn>("nvmlDeviceGetNvLinkState");
    api.device_get_topology_common_ancestor =
        lib.function<nvml_abi::DeviceGetTopologyCommonAncestorFn>("nvmlDeviceGetTopologyCommonAncestor");
    api.device_get_nvlink_remote_pci_info =
        lib.function<nvml_abi::DeviceGetNvLinkRemotePciInfoFn>("nvmlDeviceGetNvLinkRemotePciInfo_v2");
    api.device_get_retired_pages_v2 = lib.function<nvml_abi::DeviceGetRetiredPagesFn>("nvmlDeviceGetRetiredPages_v2");
    api.device_get_retired_pages = lib.function<nvml_abi::DeviceGetRetiredPagesV1Fn>("nvmlDeviceGetRetiredPages");
    api.device_get_retired_pages_pending_status =
        lib.function<nvml_abi::DeviceGetRetiredPagesPendingFn>("nvmlDeviceGetRetiredPagesPendingStatus");
    api.device_get_remapped_rows = lib.function<nvml_abi::DeviceGetRemappedRowsFn>("nvmlDeviceGetRemappedRows");
    api.device_get_row_remapper_histogram =
        lib.function<nvml_abi::DeviceGetRowRemapperHistogramFn>("nvmlDeviceGetRowRemapperHistogram");
    api.device_get_pcie_replay_counter = lib.function<nvml_abi::DeviceGetUintFn>("nvmlDeviceGetPcieReplayCounter");
    api.device_get_nvlink_error_counter =
        lib.function<nvml_abi::DeviceGetNvLinkErrorCounterFn>("nvmlDeviceGetNvLinkErrorCounter");
    api.device_get_gpu_fabric_info = lib.function<nvml_abi::DeviceGetGpuFabricInfoFn>("nvmlDeviceGetGpuFabricInfo");
    api.event_set_create = lib.function<nvml_abi::EventSetCreateFn>("nvmlEventSetCreate");
    api.device_register_events = lib.function<nvml_abi::DeviceRegisterEventsFn>("nvmlDeviceRegisterEvents");
    api.event_set_wait = lib.function<nvml_abi::EventSetWaitFn>("nvmlEventSetWait_v2");
    api.event_set_free = lib.function<nvml_abi::EventSetFreeFn>("nvmlEventSetFree");
    return api;
}

// Calls `fn(args..., &value)` when the entry point exists and returns the value on success.
template <typename Value, typename Fn, typename... Args>
std::optional<Value> query(Fn fn, Args... args) {
    if (fn == nullptr) return std::nullopt;
    Value value{};
    if (fn(args..., &value) != nvml_abi::success) return std::nullopt;
    return value;
}

template <typename Fn>
std::optional<std::string> query_text(Fn fn, nvml_abi::Device device, unsigned buffer_size) {
    if (fn == nullptr) return std::nullopt;
    std::array<char, 128> buffer{};
    if (fn(device, buffer.data(), std::min(buffer_size, static_cast<unsigned>(buffer.size()))) != nvml_abi::success)
        return std::nullopt;
    buffer.back() = '\0';
    return std::string(buffer.data());
}

// Like query_text, but says why there is no text: the symbol absent, the call's return code with
// NVML's own words, or an empty answer (which a report would show as a blank cell).
template <std::size_t buffer_size>
NvmlText explained_text(const Nvml& nvml, nvml_abi::DeviceGetTextFn fn, const char* symbol, nvml_abi::Device device) {
    if (fn == nullptr) return {std::nullopt, fmt::format("{}: symbol not in this driver's NVML", symbol)};
    std::array<char, buffer_size> buffer{};
    if (const Return code = fn(device, buffer.data(), buffer.size()); code != nvml_abi::success)
        return {std::nullopt,
                fmt::format("{} returned {} ({})", symbol, static_cast<int>(code), nvml.error_text(code))};
    buffer.back() = '\0';
    std::string text(buffer.data());
    if (text.empty()) return {std::nullopt, fmt::format("{} returned an empty string", symbol)};
    return {std::move(text), {}};
}

}  // namespace

std::shared_ptr<const Nvml> Nvml::load(const std::string& library, std::string* why) {
    auto say = [why](std::string text) {
        if (why != nullptr) *why = std::move(text);
    };
    std::string open_error;
    auto lib = DynamicLibrary::open(library, RTLD_NOW | RTLD_LOCAL, &open_error);
    if (!lib) {
        say(fmt::format("{} not loadable: {}", library, open_error));
        return nullptr;
    }
    const Api api = resolve(*lib);
    if (api.init == nullptr || api.shutdown == nullptr || api.device_get_count == nullptr ||
        api.device_get_handle_by_index == nullptr) {
        say(fmt::format("{} lacks nvmlInit_v2/nvmlShutdown/nvmlDeviceGetCount_v2/nvmlDeviceGetHandleByIndex_v2",
                        library));
        return nullptr;
    }
    if (const Return code = api.init(); code != nvml_abi::success) {
        const char* text = api.error_string != nullptr ? api.error_string(code) : nullptr;
        say(fmt::format("nvmlInit_v2 failed: {} ({})", text != nullptr ? text : "no text", static_cast<int>(code)));
        return nullptr;
    }
    return std::shared_ptr<const Nvml>(new Nvml(std::move(*lib), api));
}

Nvml::~Nvml() { api_.shutdown(); }

unsigned Nvml::device_count() const { return query<unsigned>(api_.device_get_count).value_or(0); }

std::optional<NvmlDevice> Nvml::device(unsigned index) const {
    auto handle = query<nvml_abi::Device>(api_.device_get_handle_by_index, index);
    if (!handle) return std::nullopt;
    return NvmlDevice(*this, *handle, index);
}

std::optional<std::string> Nvml::driver_version() const {
    if (api_.system_get_driver_version == nullptr) return std::nullopt;
    std::array<char, nvml_abi::driver_version_buffer_size> buffer{};
    if (api_.system_get_driver_version(buffer.data(), buffer.size()) != nvml_abi::success) return std::nullopt;
    buffer.back() = '\0';
    return std::string(buffer.data());
}

std::string Nvml::error_text(nvml_abi::Return code) const {
    const char* text = api_.error_string != nullptr ? api_.error_string(code) : nullptr;
    return text != nullptr ? text : fmt::format("NVML error {}", static_cast<int>(code));
}

std::optional<std::string> NvmlDevice::name() const {
    return query_text(nvml_->api().device_get_name, handle_, nvml_abi::device_name_buffer_size);
}

std::optional<std::string> NvmlDevice::uuid() const {
    return query_text(nvml_->api().device_get_uuid, handle_, nvml_abi::device_uuid_buffer_size);
}

NvmlText NvmlDevice::serial() const {
    return explained_text<nvml_abi::device_serial_buffer_size>(*nvml_, nvml_->api().device_get_serial, serial_symbol,
                                                               handle_);
}

NvmlText NvmlDevice::vbios_version() const {
    return explained_text<nvml_abi::device_vbios_version_buffer_size>(*nvml_, nvml_->api().device_get_vbios_version,
                                                                      vbios_version_symbol, handle_);
}

std::optional<nvml_abi::PciInfo> NvmlDevice::pci_info() const {
    auto info = query<nvml_abi::PciInfo>(nvml_->api().device_get_pci_info, handle_);
    if (info) {
        info->bus_id[sizeof(info->bus_id) - 1] = '\0';
        info->bus_id_legacy[sizeof(info->bus_id_legacy) - 1] = '\0';
    }
    return info;
}

std::optional<std::string> NvmlDevice::compute_capability() const {
    const auto fn = nvml_->api().device_get_cuda_compute_capability;
    int major = 0;
    int minor = 0;
    if (fn == nullptr || fn(handle_, &major, &minor) != nvml_abi::success) return std::nullopt;
    return fmt::format("{}.{}", major, minor);
}

std::optional<unsigned> NvmlDevice::temperature_c() const {
    return query<unsigned>(nvml_->api().device_get_temperature, handle_, nvml_abi::temperature_gpu);
}

std::optional<double> NvmlDevice::power_w() const {
    auto milliwatts = query<unsigned>(nvml_->api().device_get_power_usage, handle_);
    return milliwatts ? std::optional<double>(*milliwatts / 1000.0) : std::nullopt;
}

std::optional<double> NvmlDevice::power_limit_w() const {
    auto milliwatts = query<unsigned>(nvml_->api().device_get_enforced_power_limit, handle_);
    return milliwatts ? std::optional<double>(*milliwatts / 1000.0) : std::nullopt;
}

std::optional<double> NvmlDevice::total_energy_j() const {
    auto millijoules = query<unsigned long long>(nvml_->api().device_get_total_energy, handle_);
    return millijoules ? std::optional<double>(static_cast<double>(*millijoules) / 1000.0) : std::nullopt;
}

std::optional<unsigned> NvmlDevice::clock_mhz(nvml_abi::ClockType clock) const {
    return query<unsigned>(nvml_->api().device_get_clock_info, handle_, clock);
}

std::optional<unsigned> NvmlDevice::max_clock_mhz(nvml_abi::ClockType clock) const {
    return query<unsigned>(nvml_->api().device_get_max_clock_info, handle_, clock);
}

std::optional<std::uint64_t> NvmlDevice::clocks_event_reasons() const {
    return query<unsigned long long>(nvml_->api().device_get_clocks_event_reasons, handle_);
}

std::optional<std::uint64_t> NvmlDevice::ecc_errors(nvml_abi::MemoryErrorType type,
                                                    nvml_abi::EccCounterType counter) const {
    return query<unsigned long long>(nvml_->api().device_get_total_ecc_errors, handle_, type, counter);
}

std::optional<nvml_abi::Utilization> NvmlDevice::utilization() const {
    return query<nvml_abi::Utilization>(nvml_->api().device_get_utilization_rates, handle_);
}

std::optional<nvml_abi::Memory> NvmlDevice::memory() const {
    return query<nvml_abi::Memory>(nvml_->api().device_get_memory_info, handle_);
}

NvmlPcieLink NvmlDevice::pcie_link() const {
    const auto& api = nvml_->api();
    return NvmlPcieLink{query<unsigned>(api.device_get_curr_pcie_link_generation, handle_),
                        query<unsigned>(api.device_get_max_pcie_link_generation, handle_),
                        query<unsigned>(api.device_get_curr_pcie_link_width, handle_),
                        query<unsigned>(api.device_get_max_pcie_link_width, handle_)};
}

std::optional<unsigned> NvmlDevice::nvlink_active_links() const {
    const auto fn = nvml_->api().device_get_nvlink_state;
    if (fn == nullptr) return std::nullopt;
    unsigned active = 0;
    bool answered = false;
    for (unsigned link = 0; link < nvml_abi::nvlink_max_links; ++link) {
        nvml_abi::EnableState state = nvml_abi::feature_disabled;
        const auto code = fn(handle_, link, &state);
        if (code == nvml_abi::success) {
            answered = true;
            if (state == nvml_abi::feature_enabled) ++active;
        } else if (code == nvml_abi::error_not_supported && link == 0) {
            return 0u;  // a GPU without NVLink answers "not supported" for link 0
        }
        // invalid_argument past the GPU's last link: keep counting what answered
    }
    return answered ? std::optional<unsigned>(active) : std::nullopt;
}

std::vector<std::string> NvmlDevice::nvlink_remote_bus_ids() const {
    const auto& api = nvml_->api();
    std::vector<std::string> remote;
    if (api.device_get_nvlink_state == nullptr || api.device_get_nvlink_remote_pci_info == nullptr) return remote;
    for (unsigned link = 0; link < nvml_abi::nvlink_max_links; ++link) {
        nvml_abi::EnableState state = nvml_abi::feature_disabled;
        if (api.device_get_nvlink_state(handle_, link, &state) != nvml_abi::success) continue;
        if (state != nvml_abi::feature_enabled) continue;
        nvml_abi::PciInfo pci{};
        if (api.device_get_nvlink_remote_pci_info(handle_, link, &pci) != nvml_abi::success) continue;
        pci.bus_id[sizeof(pci.bus_id) - 1] = '\0';
        remote.emplace_back(pci.bus_id);
    }
    return remote;
}

std::optional<nvml_abi::GpuTopologyLevel> NvmlDevice::common_ancestor(const NvmlDevice& other) const {
    return query<nvml_abi::GpuTopologyLevel>(nvml_->api().device_get_topology_common_ancestor, handle_, other.handle_);
}

}  // namespace shakedown
