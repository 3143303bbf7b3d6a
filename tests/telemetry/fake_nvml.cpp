// A fake libnvidia-ml: two GPUs with fixed, distinctive readings. Exports the entry points
// shakedown resolves, with the signatures of src/telemetry/nvml_api.hpp. GPU 1 lacks NVLink
// and ECC, as a PCIe card would; GPU 0 reports power cap and HW thermal slowdown.
#include "telemetry/nvml_api.hpp"

#include <cstdio>
#include <cstring>

namespace abi = shakedown::nvml_abi;

namespace {

struct FakeGpu {
    const char* name;
    const char* uuid;
    unsigned bus;
    unsigned temperature_c;
    unsigned power_mw;
    unsigned limit_mw;
    unsigned sm_mhz;
    unsigned mem_mhz;
    unsigned long long reasons;
    bool has_ecc_and_nvlink;
};

constexpr FakeGpu gpus[] = {
    {"Fake H200", "GPU-00000000-1111-2222-3333-444444444444", 0x19, 71, 612345, 700000, 1755, 2619,
     abi::clocks_event_reason::sw_power_cap | abi::clocks_event_reason::hw_thermal_slowdown, true},
    {"Fake PCIe GPU", "GPU-55555555-6666-7777-8888-999999999999", 0x3b, 40, 90000, 350000, 1410, 1593, 0, false},
};

const FakeGpu* gpu(abi::Device device) { return reinterpret_cast<const FakeGpu*>(device); }

abi::Return copy_text(const char* text, char* buffer, unsigned length) {
    if (std::strlen(text) + 1 > length) return abi::error_insufficient_size;
    std::strcpy(buffer, text);
    return abi::success;
}

}  // namespace

extern "C" {

abi::Return nvmlInit_v2() { return abi::success; }
abi::Return nvmlShutdown() { return abi::success; }
const char* nvmlErrorString(abi::Return) { return "fake error"; }

abi::Return nvmlSystemGetDriverVersion(char* buffer, unsigned length) { return copy_text("999.99", buffer, length); }

abi::Return nvmlDeviceGetCount_v2(unsigned* count) {
    *count = 2;
    return abi::success;
}

abi::Return nvmlDeviceGetHandleByIndex_v2(unsigned index, abi::Device* device) {
    if (index >= 2) return abi::error_invalid_argument;
    *device = reinterpret_cast<abi::Device>(const_cast<FakeGpu*>(&gpus[index]));
    return abi::success;
}

abi::Return nvmlDeviceGetName(abi::Device device, char* buffer, unsigned length) {
    return copy_text(gpu(device)->name, buffer, length);
}

abi::Return nvmlDeviceGetUUID(abi::Device device, char* buffer, unsigned length) {
    return copy_text(gpu(device)->uuid, buffer, length);
}

abi::Return nvmlDeviceGetPciInfo_v3(abi::Device device, abi::PciInfo* info) {
    std::memset(info, 0, sizeof(*info));
    info->bus = gpu(device)->bus;
    info->pci_device_id = 0x233510de;
    std::snprintf(info->bus_id, sizeof(info->bus_id), "00000000:%02X:00.0", info->bus);
    std::snprintf(info->bus_id_legacy, sizeof(info->bus_id_legacy), "0000:%02X:00.0", info->bus);
    return abi::success;
}

abi::Return nvmlDeviceGetCudaComputeCapability(abi::Device, int* major, int* minor) {
    *major = 9;
    *minor = 0;
    return abi::success;
}

abi::Return nvmlDeviceGetTemperature(abi::Device device, abi::TemperatureSensor sensor, unsigned* value) {
    if (sensor != abi::temperature_gpu) return abi::error_invalid_argument;
    *value = gpu(device)->temperature_c;
    return abi::success;
}

abi::Return nvmlDeviceGetPowerUsage(abi::Device device, unsigned* milliwatts) {
    *milliwatts = gpu(device)->power_mw;
    return abi::success;
}

abi::Return nvmlDeviceGetEnforcedPowerLimit(abi::Device device, unsigned* milliwatts) {
    *milliwatts = gpu(device)->limit_mw;
    return abi::success;
}

abi::Return nvmlDeviceGetClockInfo(abi::Device device, abi::ClockType clock, unsigned* mhz) {
    if (clock == abi::clock_sm) *mhz = gpu(device)->sm_mhz;
    else if (clock == abi::clock_mem) *mhz = gpu(device)->mem_mhz;
    else return abi::error_not_supported;
    return abi::success;
}

abi::Return nvmlDeviceGetMaxClockInfo(abi::Device device, abi::ClockType clock, unsigned* mhz) {
    if (clock == abi::clock_sm) *mhz = gpu(device)->sm_mhz + 225;
    else if (clock == abi::clock_mem) *mhz = gpu(device)->mem_mhz;
    else return abi::error_not_supported;
    return abi::success;
}

// Only the pre-R535 name: proves the fallback look-up.
abi::Return nvmlDeviceGetCurrentClocksThrottleReasons(abi::Device device, unsigned long long* reasons) {
    *reasons = gpu(device)->reasons;
    return abi::success;
}

abi::Return nvmlDeviceGetTotalEccErrors(abi::Device device, abi::MemoryErrorType type, abi::EccCounterType,
                                        unsigned long long* count) {
    if (!gpu(device)->has_ecc_and_nvlink) return abi::error_not_supported;
    *count = type == abi::memory_error_corrected ? 3 : 0;
    return abi::success;
}

abi::Return nvmlDeviceGetUtilizationRates(abi::Device, abi::Utilization* utilization) {
    utilization->gpu = 97;
    utilization->memory = 42;
    return abi::success;
}

abi::Return nvmlDeviceGetMemoryInfo(abi::Device, abi::Memory* memory) {
    memory->total = 150ull << 30;
    memory->used = 1ull << 30;
    memory->free = memory->total - memory->used;
    return abi::success;
}

abi::Return nvmlDeviceGetCurrPcieLinkGeneration(abi::Device, unsigned* value) { *value = 5; return abi::success; }
abi::Return nvmlDeviceGetMaxPcieLinkGeneration(abi::Device, unsigned* value) { *value = 5; return abi::success; }
abi::Return nvmlDeviceGetCurrPcieLinkWidth(abi::Device, unsigned* value) { *value = 8; return abi::success; }
abi::Return nvmlDeviceGetMaxPcieLinkWidth(abi::Device, unsigned* value) { *value = 16; return abi::success; }

abi::Return nvmlDeviceGetNvLinkState(abi::Device device, unsigned link, abi::EnableState* state) {
    if (!gpu(device)->has_ecc_and_nvlink) return abi::error_not_supported;
    if (link >= abi::nvlink_max_links) return abi::error_invalid_argument;
    *state = link < 18 ? abi::feature_enabled : abi::feature_disabled;
    return abi::success;
}

}  // extern "C"
