// A fake libnvidia-ml: two GPUs with fixed, distinctive readings. Exports the entry points
// shakedown resolves, with the signatures of src/telemetry/nvml_api.hpp. GPU 1 lacks NVLink
// and ECC, as a PCIe card would; GPU 0 reports power cap and HW thermal slowdown.
//
// Health entry points (telemetry/gpu_health_telemetry.hpp): GPU 0 is healthy unless the
// environment of the process that loads it says otherwise (all on GPU 0):
//   SHAKEDOWN_FAKE_NVML_XID=79,13          these Xid events, delivered on the first event polls
//   SHAKEDOWN_FAKE_NVML_REMAP_PENDING=1    a pending row remap; ..._REMAP_FAILURE=1 a failed one
//   SHAKEDOWN_FAKE_NVML_REMAP_BANK_LOW=N, ..._REMAP_BANK_NONE=N   banks with few / no spare rows left
//   SHAKEDOWN_FAKE_NVML_REPLAY_STEP=N      the PCIe replay counter rises by N per read
//   SHAKEDOWN_FAKE_NVML_CRC_STEP=N         NVLink link 0's CRC flit counter rises by N per read
//   SHAKEDOWN_FAKE_NVML_SBE_STEP=N, ..._DBE_STEP=N   volatile ECC counts rise by N per read
//   SHAKEDOWN_FAKE_NVML_NVLINK_DOWN=k      link k inactive
//   SHAKEDOWN_FAKE_NVML_NVLINK_COUNT=n     only links 0..n-1 answer (18 by default)
//   SHAKEDOWN_FAKE_NVML_FABRIC_STATE=s, ..._FABRIC_STATUS=r   the fabric registration (default 3, 0)
//   SHAKEDOWN_FAKE_NVML_UNSUPPORTED=nvmlDeviceGetPcieReplayCounter,...  those answer NOT_SUPPORTED
// Built a second time with FAKE_NVML_OLD_DRIVER: a driver whose NVML lacks every health symbol.
#include "telemetry/nvml_api.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace abi = shakedown::nvml_abi;

namespace {

struct FakeGpu {
    const char* name;
    const char* uuid;
    const char* serial;
    const char* vbios;
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
    {"Fake H200", "GPU-00000000-1111-2222-3333-444444444444", "1654923000017", "96.00.AF.00.01", 0x19, 71, 612345, 700000, 1755, 2619,
     abi::clocks_event_reason::sw_power_cap | abi::clocks_event_reason::hw_thermal_slowdown, true},
    {"Fake PCIe GPU", "GPU-55555555-6666-7777-8888-999999999999", "1321021004242", "92.00.45.00.06", 0x3b, 40, 90000, 350000, 1410, 1593, 0, false},
};

const FakeGpu* gpu(abi::Device device) { return reinterpret_cast<const FakeGpu*>(device); }

bool is_gpu0(abi::Device device) { return gpu(device) == &gpus[0]; }

long env_number(const char* name, long fallback) {
    const char* text = std::getenv(name);
    return text != nullptr && *text != '\0' ? std::strtol(text, nullptr, 10) : fallback;
}

// Whether SHAKEDOWN_FAKE_NVML_UNSUPPORTED names `symbol`.
bool unsupported(const char* symbol) {
    const char* list = std::getenv("SHAKEDOWN_FAKE_NVML_UNSUPPORTED");
    if (list == nullptr) return false;
    const std::string names = std::string(",") + list + ",";
    return names.find(std::string(",") + symbol + ",") != std::string::npos;
}

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

// Both GPUs have a serial and a VBIOS; SHAKEDOWN_FAKE_NVML_UNSUPPORTED may take either away.
abi::Return nvmlDeviceGetSerial(abi::Device device, char* buffer, unsigned length) {
    if (unsupported("nvmlDeviceGetSerial")) return abi::error_not_supported;
    return copy_text(gpu(device)->serial, buffer, length);
}

abi::Return nvmlDeviceGetVbiosVersion(abi::Device device, char* buffer, unsigned length) {
    if (unsupported("nvmlDeviceGetVbiosVersion")) return abi::error_not_supported;
    return copy_text(gpu(device)->vbios, buffer, length);
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

// The H200's counter rises 612.345 J per call (as if read once a second at its power); the PCIe
// card has none.
abi::Return nvmlDeviceGetTotalEnergyConsumption(abi::Device device, unsigned long long* millijoules) {
    static std::atomic<unsigned long long> h200_mj{987654321};
    if (!is_gpu0(device) || unsupported("nvmlDeviceGetTotalEnergyConsumption")) return abi::error_not_supported;
    *millijoules = h200_mj.fetch_add(gpu(device)->power_mw);
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

abi::Return nvmlDeviceGetTotalEccErrors(abi::Device device, abi::MemoryErrorType type, abi::EccCounterType counter,
                                        unsigned long long* count) {
    if (!gpu(device)->has_ecc_and_nvlink) return abi::error_not_supported;
    *count = type == abi::memory_error_corrected ? 3 : 0;
#ifndef FAKE_NVML_OLD_DRIVER
    static std::atomic<long> reads_sbe{0}, reads_dbe{0};
    if (counter == abi::ecc_volatile) {
        if (type == abi::memory_error_corrected) *count += env_number("SHAKEDOWN_FAKE_NVML_SBE_STEP", 0) * reads_sbe++;
        else *count += env_number("SHAKEDOWN_FAKE_NVML_DBE_STEP", 0) * reads_dbe++;
    }
#else
    (void)counter;
#endif
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
#ifndef FAKE_NVML_OLD_DRIVER
    if (static_cast<long>(link) >= env_number("SHAKEDOWN_FAKE_NVML_NVLINK_COUNT", 18)) return abi::error_invalid_argument;
    if (static_cast<long>(link) == env_number("SHAKEDOWN_FAKE_NVML_NVLINK_DOWN", -1)) *state = abi::feature_disabled;
#endif
    return abi::success;
}

#ifndef FAKE_NVML_OLD_DRIVER

abi::Return nvmlDeviceGetRetiredPages_v2(abi::Device device, abi::PageRetirementCause, unsigned* count,
                                         unsigned long long*, unsigned long long*) {
    if (!gpu(device)->has_ecc_and_nvlink || unsupported("nvmlDeviceGetRetiredPages_v2")) return abi::error_not_supported;
    *count = 0;
    return abi::success;
}

abi::Return nvmlDeviceGetRetiredPagesPendingStatus(abi::Device device, abi::EnableState* pending) {
    if (!gpu(device)->has_ecc_and_nvlink || unsupported("nvmlDeviceGetRetiredPagesPendingStatus"))
        return abi::error_not_supported;
    *pending = abi::feature_disabled;
    return abi::success;
}

abi::Return nvmlDeviceGetRemappedRows(abi::Device device, unsigned* corrected, unsigned* uncorrected, unsigned* pending,
                                      unsigned* failure) {
    if (!gpu(device)->has_ecc_and_nvlink || unsupported("nvmlDeviceGetRemappedRows")) return abi::error_not_supported;
    *corrected = 1;
    *uncorrected = 0;
    *pending = static_cast<unsigned>(env_number("SHAKEDOWN_FAKE_NVML_REMAP_PENDING", 0));
    *failure = static_cast<unsigned>(env_number("SHAKEDOWN_FAKE_NVML_REMAP_FAILURE", 0));
    return abi::success;
}

// 1536 banks (made up), all with every spare row unless the environment says otherwise.
abi::Return nvmlDeviceGetRowRemapperHistogram(abi::Device device, abi::RowRemapperHistogramValues* banks) {
    if (!gpu(device)->has_ecc_and_nvlink || unsupported("nvmlDeviceGetRowRemapperHistogram")) return abi::error_not_supported;
    banks->low = static_cast<unsigned>(env_number("SHAKEDOWN_FAKE_NVML_REMAP_BANK_LOW", 0));
    banks->none = static_cast<unsigned>(env_number("SHAKEDOWN_FAKE_NVML_REMAP_BANK_NONE", 0));
    banks->partial = 0;
    banks->high = 0;
    banks->max = 1536 - banks->low - banks->none;
    return abi::success;
}

abi::Return nvmlDeviceGetPcieReplayCounter(abi::Device device, unsigned* value) {
    if (unsupported("nvmlDeviceGetPcieReplayCounter")) return abi::error_not_supported;
    static std::atomic<long> reads{0};
    *value = 2;
    if (is_gpu0(device)) *value += static_cast<unsigned>(env_number("SHAKEDOWN_FAKE_NVML_REPLAY_STEP", 0) * reads++);
    return abi::success;
}

abi::Return nvmlDeviceGetNvLinkErrorCounter(abi::Device device, unsigned link, abi::NvLinkErrorCounter counter,
                                            unsigned long long* value) {
    if (!gpu(device)->has_ecc_and_nvlink || unsupported("nvmlDeviceGetNvLinkErrorCounter")) return abi::error_not_supported;
    if (link >= abi::nvlink_max_links || static_cast<long>(link) >= env_number("SHAKEDOWN_FAKE_NVML_NVLINK_COUNT", 18))
        return abi::error_invalid_argument;
    static std::atomic<long> reads{0};
    *value = 0;
    if (link == 0 && counter == abi::nvlink_error_dl_crc_flit)
        *value = static_cast<unsigned long long>(env_number("SHAKEDOWN_FAKE_NVML_CRC_STEP", 0) * reads++);
    return abi::success;
}

abi::Return nvmlDeviceGetGpuFabricInfo(abi::Device device, abi::GpuFabricInfo* info) {
    if (unsupported("nvmlDeviceGetGpuFabricInfo")) return abi::error_not_supported;
    std::memset(info, 0, sizeof(*info));
    if (!gpu(device)->has_ecc_and_nvlink) {
        info->state = abi::fabric_state::not_supported;
        return abi::success;
    }
    info->state = static_cast<unsigned char>(env_number("SHAKEDOWN_FAKE_NVML_FABRIC_STATE", abi::fabric_state::completed));
    info->status = static_cast<abi::Return>(env_number("SHAKEDOWN_FAKE_NVML_FABRIC_STATUS", abi::success));
    info->clique_id = 7;
    return abi::success;
}

struct FakeEventSet {
    abi::Device device = nullptr;
    std::vector<unsigned long long> pending;  // Xids still to deliver
};

abi::Return nvmlEventSetCreate(abi::EventSet* set) {
    *set = reinterpret_cast<abi::EventSet>(new FakeEventSet);
    return abi::success;
}

abi::Return nvmlDeviceRegisterEvents(abi::Device device, unsigned long long types, abi::EventSet set) {
    if (unsupported("nvmlDeviceRegisterEvents")) return abi::error_not_supported;
    auto* fake = reinterpret_cast<FakeEventSet*>(set);
    fake->device = device;
    if ((types & abi::event_type_xid_critical_error) == 0 || !is_gpu0(device)) return abi::success;
    if (const char* list = std::getenv("SHAKEDOWN_FAKE_NVML_XID")) {
        for (const char* at = list; *at != '\0';) {
            char* end = nullptr;
            const unsigned long long xid = std::strtoull(at, &end, 10);
            if (end == at) break;
            fake->pending.push_back(xid);
            at = *end == ',' ? end + 1 : end;
        }
    }
    return abi::success;
}

abi::Return nvmlEventSetWait_v2(abi::EventSet set, abi::EventData* data, unsigned) {
    auto* fake = reinterpret_cast<FakeEventSet*>(set);
    if (fake->pending.empty()) return abi::error_timeout;
    std::memset(data, 0, sizeof(*data));
    data->device = fake->device;
    data->event_type = abi::event_type_xid_critical_error;
    data->event_data = fake->pending.front();
    fake->pending.erase(fake->pending.begin());
    return abi::success;
}

abi::Return nvmlEventSetFree(abi::EventSet set) {
    delete reinterpret_cast<FakeEventSet*>(set);
    return abi::success;
}

#endif  // FAKE_NVML_OLD_DRIVER

}  // extern "C"
