// Our own declarations of the few NVML entry points shakedown uses. There is no nvml.h on the
// build machine, and a node without the NVIDIA driver must still run shakedown, so NVML is
// loaded at run time (dlopen) and these declarations describe the ABI we expect.
//
// They follow nvml.h of NVML_API_VERSION 12 (the header shipped with CUDA 12.x / driver R535+,
// copyright 1993-2023, as mirrored in github.com/XuehaiPan/nvml-dev nvml.h); every symbol used
// here exists unchanged in that header and, under the same versioned names, in later drivers:
//   nvmlReturn_t values, nvmlTemperatureSensors_t (GPU = 0), nvmlClockType_t (GRAPHICS = 0,
//   SM = 1, MEM = 2), nvmlMemoryErrorType_t (CORRECTED = 0, UNCORRECTED = 1),
//   nvmlEccCounterType_t (VOLATILE = 0, AGGREGATE = 1), nvmlEnableState_t (DISABLED = 0,
//   ENABLED = 1), the clocks event (formerly "throttle") reason bits, and the v3 layout of
//   nvmlPciInfo_t that nvmlDeviceGetPciInfo_v3 fills. C enums are int-sized on x86-64 Linux,
//   hence the explicit `int` underlying types.
#pragma once

#include <cstdint>

namespace shakedown::nvml_abi {

enum Return : int {
    success = 0,
    error_uninitialized = 1,
    error_invalid_argument = 2,
    error_not_supported = 3,
    error_no_permission = 4,
    error_not_found = 6,
    error_insufficient_size = 7,
    error_driver_not_loaded = 9,
    error_function_not_found = 13,
    error_timeout = 10,
    error_gpu_is_lost = 15,
    error_unknown = 999,
};

enum TemperatureSensor : int { temperature_gpu = 0 };
enum ClockType : int { clock_graphics = 0, clock_sm = 1, clock_mem = 2, clock_video = 3 };
enum MemoryErrorType : int { memory_error_corrected = 0, memory_error_uncorrected = 1 };
enum EccCounterType : int { ecc_volatile = 0, ecc_aggregate = 1 };
enum EnableState : int { feature_disabled = 0, feature_enabled = 1 };
// nvmlGpuTopologyLevel_t: the closest common ancestor of two GPUs on the PCIe tree.
enum GpuTopologyLevel : int {
    topology_internal = 0,     // the same board (multi-GPU board)
    topology_single = 10,      // one PCIe switch between them ("PIX")
    topology_multiple = 20,    // several PCIe switches, no host bridge ("PXB")
    topology_hostbridge = 30,  // the same PCIe host bridge ("PHB")
    topology_node = 40,        // host bridges of one NUMA node ("NODE")
    topology_system = 50,      // across NUMA nodes, the SMP interconnect ("SYS")
};

using Device = struct nvmlDevice_st*;  // opaque handle

// Buffer sizes: the _V2 sizes are the largest nvml.h documents for names and UUIDs.
inline constexpr unsigned device_name_buffer_size = 96;     // NVML_DEVICE_NAME_V2_BUFFER_SIZE
inline constexpr unsigned device_uuid_buffer_size = 96;     // NVML_DEVICE_UUID_V2_BUFFER_SIZE
inline constexpr unsigned driver_version_buffer_size = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
inline constexpr unsigned device_serial_buffer_size = 30;   // NVML_DEVICE_SERIAL_BUFFER_SIZE
inline constexpr unsigned device_vbios_version_buffer_size = 32;  // NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE
inline constexpr unsigned nvlink_max_links = 18;            // NVML_NVLINK_MAX_LINKS

// nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 fills it (NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE = 16,
// NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE = 32). 68 bytes, no padding.
struct PciInfo {
    char bus_id_legacy[16];       // "0000:19:00.0"
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pci_device_id;   // device id << 16 | vendor id
    unsigned int pci_subsystem_id;
    char bus_id[32];              // "00000000:19:00.0"
};
static_assert(sizeof(PciInfo) == 68, "nvmlPciInfo_t layout changed");

struct Utilization {  // nvmlUtilization_t
    unsigned int gpu;     // percent of the last sample period a kernel ran
    unsigned int memory;  // percent of the last sample period device memory was read or written
};
static_assert(sizeof(Utilization) == 8, "nvmlUtilization_t layout changed");

struct Memory {  // nvmlMemory_t (v1, what nvmlDeviceGetMemoryInfo fills)
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};
static_assert(sizeof(Memory) == 24, "nvmlMemory_t layout changed");

// nvmlClocksEventReason* bits (renamed from nvmlClocksThrottleReason* in API 12; same values).
namespace clocks_event_reason {
inline constexpr std::uint64_t gpu_idle = 0x1;
inline constexpr std::uint64_t applications_clocks_setting = 0x2;
inline constexpr std::uint64_t sw_power_cap = 0x4;
inline constexpr std::uint64_t hw_slowdown = 0x8;
inline constexpr std::uint64_t sync_boost = 0x10;
inline constexpr std::uint64_t sw_thermal_slowdown = 0x20;
inline constexpr std::uint64_t hw_thermal_slowdown = 0x40;
inline constexpr std::uint64_t hw_power_brake_slowdown = 0x80;
inline constexpr std::uint64_t display_clock_setting = 0x100;
}  // namespace clocks_event_reason

// Health counters (nvml.h of API 12, same source as above).
enum PageRetirementCause : int {  // nvmlPageRetirementCause_t
    retired_multiple_single_bit = 0,
    retired_double_bit = 1,
};
enum NvLinkErrorCounter : int {  // nvmlNvLinkErrorCounter_t
    nvlink_error_dl_replay = 0,
    nvlink_error_dl_recovery = 1,
    nvlink_error_dl_crc_flit = 2,
    nvlink_error_dl_crc_data = 3,
};
// nvmlGpuFabricState_t (unsigned char): NVML_GPU_FABRIC_STATE_*.
namespace fabric_state {
inline constexpr unsigned char not_supported = 0;
inline constexpr unsigned char not_started = 1;
inline constexpr unsigned char in_progress = 2;
inline constexpr unsigned char completed = 3;
}  // namespace fabric_state
// nvmlGpuFabricInfo_t as nvmlDeviceGetGpuFabricInfo fills it (NVML_GPU_FABRIC_UUID_LEN = 16).
struct GpuFabricInfo {
    unsigned char cluster_uuid[16];
    Return status;  // meaningful only once state is completed
    unsigned int clique_id;
    unsigned char state;
};
static_assert(sizeof(GpuFabricInfo) == 28, "nvmlGpuFabricInfo_t layout changed");

// nvmlRowRemapperHistogramValues_t as nvmlDeviceGetRowRemapperHistogram fills it: the memory banks
// by how many spare rows each has left (max: all, none: no spare row left).
struct RowRemapperHistogramValues {
    unsigned int max;
    unsigned int high;
    unsigned int partial;
    unsigned int low;
    unsigned int none;
};
static_assert(sizeof(RowRemapperHistogramValues) == 20, "nvmlRowRemapperHistogramValues_t layout changed");

// Events (nvmlEventSet_t is an opaque handle; nvmlEventData_t as nvmlEventSetWait_v2 fills it).
using EventSet = struct nvmlEventSet_st*;
inline constexpr unsigned long long event_type_xid_critical_error = 0x8;  // nvmlEventTypeXidCriticalError
struct EventData {
    Device device;
    unsigned long long event_type;
    unsigned long long event_data;  // the Xid number for an Xid event
    unsigned int gpu_instance_id;
    unsigned int compute_instance_id;
};
static_assert(sizeof(EventData) == 32, "nvmlEventData_t layout changed");

// Function types, named after the exported symbol they are looked up by.
using InitFn = Return (*)();                                                    // nvmlInit_v2
using ShutdownFn = Return (*)();                                                // nvmlShutdown
using ErrorStringFn = const char* (*)(Return);                                  // nvmlErrorString
using SystemGetDriverVersionFn = Return (*)(char*, unsigned int);               // nvmlSystemGetDriverVersion
using DeviceGetCountFn = Return (*)(unsigned int*);                             // nvmlDeviceGetCount_v2
using DeviceGetHandleByIndexFn = Return (*)(unsigned int, Device*);             // nvmlDeviceGetHandleByIndex_v2
using DeviceGetNameFn = Return (*)(Device, char*, unsigned int);                // nvmlDeviceGetName
using DeviceGetUuidFn = Return (*)(Device, char*, unsigned int);                // nvmlDeviceGetUUID
using DeviceGetTextFn = Return (*)(Device, char*, unsigned int);  // nvmlDeviceGetSerial, nvmlDeviceGetVbiosVersion
using DeviceGetPciInfoFn = Return (*)(Device, PciInfo*);                        // nvmlDeviceGetPciInfo_v3
using DeviceGetCudaComputeCapabilityFn = Return (*)(Device, int*, int*);        // nvmlDeviceGetCudaComputeCapability
using DeviceGetTemperatureFn = Return (*)(Device, TemperatureSensor, unsigned int*);  // nvmlDeviceGetTemperature
using DeviceGetMilliwattsFn = Return (*)(Device, unsigned int*);  // nvmlDeviceGetPowerUsage, ...EnforcedPowerLimit
using DeviceGetEnergyFn = Return (*)(Device, unsigned long long*);  // nvmlDeviceGetTotalEnergyConsumption (mJ)
using DeviceGetClockFn = Return (*)(Device, ClockType, unsigned int*);  // nvmlDeviceGetClockInfo, ...MaxClockInfo
using DeviceGetReasonsFn = Return (*)(Device, unsigned long long*);  // nvmlDeviceGetCurrentClocks{Event,Throttle}Reasons
using DeviceGetTotalEccErrorsFn = Return (*)(Device, MemoryErrorType, EccCounterType, unsigned long long*);
using DeviceGetUtilizationRatesFn = Return (*)(Device, Utilization*);           // nvmlDeviceGetUtilizationRates
using DeviceGetMemoryInfoFn = Return (*)(Device, Memory*);                      // nvmlDeviceGetMemoryInfo
using DeviceGetUintFn = Return (*)(Device, unsigned int*);  // nvmlDeviceGet{Curr,Max}PcieLink{Generation,Width}
using DeviceGetNvLinkStateFn = Return (*)(Device, unsigned int, EnableState*);  // nvmlDeviceGetNvLinkState
using DeviceGetTopologyCommonAncestorFn = Return (*)(Device, Device, GpuTopologyLevel*);  // nvmlDeviceGetTopologyCommonAncestor
using DeviceGetNvLinkRemotePciInfoFn = Return (*)(Device, unsigned int, PciInfo*);  // nvmlDeviceGetNvLinkRemotePciInfo_v2

using DeviceGetRetiredPagesFn = Return (*)(Device, PageRetirementCause, unsigned int*, unsigned long long*,
                                           unsigned long long*);               // nvmlDeviceGetRetiredPages_v2
using DeviceGetRetiredPagesV1Fn = Return (*)(Device, PageRetirementCause, unsigned int*, unsigned long long*);  // nvmlDeviceGetRetiredPages
using DeviceGetRetiredPagesPendingFn = Return (*)(Device, EnableState*);  // nvmlDeviceGetRetiredPagesPendingStatus
using DeviceGetRemappedRowsFn = Return (*)(Device, unsigned int*, unsigned int*, unsigned int*, unsigned int*);  // nvmlDeviceGetRemappedRows
using DeviceGetRowRemapperHistogramFn = Return (*)(Device, RowRemapperHistogramValues*);  // nvmlDeviceGetRowRemapperHistogram
using DeviceGetNvLinkErrorCounterFn = Return (*)(Device, unsigned int, NvLinkErrorCounter, unsigned long long*);  // nvmlDeviceGetNvLinkErrorCounter
using DeviceGetGpuFabricInfoFn = Return (*)(Device, GpuFabricInfo*);  // nvmlDeviceGetGpuFabricInfo
using EventSetCreateFn = Return (*)(EventSet*);                       // nvmlEventSetCreate
using DeviceRegisterEventsFn = Return (*)(Device, unsigned long long, EventSet);  // nvmlDeviceRegisterEvents
using EventSetWaitFn = Return (*)(EventSet, EventData*, unsigned int);  // nvmlEventSetWait_v2 (timeout in ms)
using EventSetFreeFn = Return (*)(EventSet);                            // nvmlEventSetFree

}  // namespace shakedown::nvml_abi
