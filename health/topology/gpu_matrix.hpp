// The GPU-to-GPU link matrix of a node as `nvidia-smi topo -m` prints it: NV<n> where n
// NVLink links join the pair directly, else the PCIe path kind of NVML's common ancestor.
#pragma once

#include "telemetry/nvml.hpp"

#include <optional>
#include <string>
#include <vector>

namespace shakedown::health {

// "PIX", "PXB", "PHB", "NODE", "SYS" ("BRD" for two GPUs on one board); "?" when unknown.
std::string path_label(std::optional<nvml_abi::GpuTopologyLevel> level);

// NV<n> when n > 0, else the PCIe label.
std::string link_label(unsigned nvlinks, std::optional<nvml_abi::GpuTopologyLevel> level);

// How many of `remote_bus_ids` (one per active link) name `peer_bus_id` (any spelling).
unsigned links_to(const std::vector<std::string>& remote_bus_ids, const std::string& peer_bus_id);

struct GpuNode {
    unsigned nvml_index = 0;
    std::string bus_id;  // normalised "0000:19:00.0"
    std::string name;
};

struct GpuMatrix {
    std::vector<GpuNode> gpus;
    std::vector<std::vector<std::string>> labels;  // [i][j], "X" on the diagonal
    unsigned nvswitch_links = 0;  // links whose far end is not one of these GPUs (NVSwitch)
};

GpuMatrix gpu_matrix(const Nvml& nvml);

// "GPU0-GPU1:NV18 GPU0-GPU2:SYS ..." (upper triangle).
std::string describe_pairs(const GpuMatrix& matrix);

}  // namespace shakedown::health
