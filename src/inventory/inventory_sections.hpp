// The sections collect_inventory() assembles, one file each. Sections that depend on an
// optional feature (RDMA, CUDA GPUs, NCCL, Kokkos) have a second implementation that CMake
// compiles when the feature is off.
#pragma once

#include "inventory/hwloc_topology.hpp"
#include "telemetry/nvml.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace shakedown::inventory_detail {

nlohmann::json os_section();
nlohmann::json board_section(const std::string& dmi_folder = "/sys/class/dmi/id");
nlohmann::json cpu_section(const HwlocTopology& topology);
nlohmann::json memory_section(const HwlocTopology& topology);
nlohmann::json pci_section(const HwlocTopology& topology, std::size_t max_devices);
nlohmann::json network_section(const std::string& sys_class_net = "/sys/class/net");
nlohmann::json rdma_section();   // array of HCAs with their ports; [] without verbs or devices
nlohmann::json blas_section();
// Array, one entry per GPU this rank sees. `runtime_error` receives why the GPU runtime could
// not answer (no driver, driver too old) when it failed; it stays empty otherwise.
nlohmann::json gpu_section(const Nvml* nvml, std::string& runtime_error);
nlohmann::json nvml_section(const Nvml* nvml, const std::string& why_not_loaded);
nlohmann::json versions_section(const HwlocTopology& topology, const Nvml* nvml);

// Facts NVML adds to a GPU (power limit, PCIe link, NVLink, ECC): merged under "nvml".
nlohmann::json nvml_gpu_facts(const NvmlDevice& device);
// "0000:19:00.0": the form lspci -D, sysfs and hwloc use, from NVML's or CUDA's fields.
std::string pci_bus_id(unsigned domain, unsigned bus, unsigned device);

std::optional<std::string> nccl_version();    // "2.28.9" when built with NCCL
std::optional<std::string> kokkos_version();  // "3.4.1" when built with Kokkos

// First line of a text (MPI library versions run over several lines).
std::string first_line(std::string_view text);
// InfiniBand rate in Gb/s from ibv_port_attr's active_speed and active_width codes (IBTA
// encodings: speed 1 SDR .. 128 NDR, width 1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x, 16 = 2x);
// nullopt for codes this table does not know.
std::optional<double> ib_rate_gbps(unsigned speed_code, unsigned width_code);
std::string ib_speed_name(unsigned speed_code);
std::optional<unsigned> ib_width_lanes(unsigned width_code);

}  // namespace shakedown::inventory_detail
