// What this node is: CPU, memory, NUMA, PCI, network, RDMA, BLAS, GPUs and the versions of
// every library in use. Collected once per rank (fast), written into the trace's /inventory
// and printed by `shakedown inventory`. Sections a node lacks are present and empty.
//
// Keys (others may be added; these are relied on):
//   node, collected_utc, collect_seconds
//   os          {pretty_name, kernel, kernel_version, machine}
//   board       {vendor, product, bios_version}: the DMI table's, each absent where not readable
//   cpu         {model, vendor, sockets, cores, pus, allowed_pus, numa_nodes, max_mhz,
//                max_mhz_source ("cpufreq" | "proc_cpuinfo" | "unknown"), flags[], vector_flags[]}
//   memory      {total_bytes (max of the two below), numa_total_bytes (hwloc), os_total_bytes
//                (sysconf), numa[{index, bytes, pus}]}
//   pci         {devices[{bus_id, class, class_id, vendor_id, device_id, numa_node (-1: none),
//                os_devices[], link_gbytes_per_s?}], omitted}
//   network     [{name, mtu, speed_mbps (-1: unknown), operstate, address, type}]
//   rdma        [{name, fw_ver, node_guid, ports[{port, state, active_mtu, speed, width,
//                rate_gbps, link_layer, lid}]}]
//   blas        {library, source ("linked" | "libblas.so.3" | "none"), openblas_core,
//                openblas_config, vendor?, openblas_threads?, openblas_coretype_env?}
//   gpus        [{index (CUDA ordinal), name, uuid, pci_bus_id, sm_count, compute_capability,
//                max_sm_clock_mhz, memory_clock_mhz, memory_bus_width_bits, memory_bytes,
//                nvml? {nvml_index, power_limit_w, pcie_generation_current/max,
//                pcie_width_current/max, nvlink_active_links, ecc_*_aggregate, serial,
//                vbios_version (each null with a serial_reason / vbios_version_reason where
//                NVML declined, never ""), ...}}]
//   gpu_runtime_error   why the GPU runtime gave no devices (absent when it answered)
//   nvml        {loaded, reason | library, driver_version, device_count, devices: [the gpus[].nvml facts of
//               every GPU NVML sees, whatever the rank's CUDA visibility]}
//   versions    {shakedown, compiler, mpi, mpi_standard, hdf5, hwloc, cuda, nvidia_driver,
//                nccl, kokkos}
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace shakedown {

nlohmann::json collect_inventory();
std::string format_inventory(const nlohmann::json& inventory);  // human-readable, multi-line

}  // namespace shakedown
