// Per node, what the hardware is, as its leader's inventory recorded it: the CPU model, and per
// GPU its model, UUID, serial, driver and VBIOS, and the NICs' firmware. What an acceptance
// protocol lists so a node sent back and returned can be told apart. A fact the inventory does not
// hold is "not recorded", never an empty cell.
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/load/run_details.hpp"

#include <string>
#include <vector>

namespace shakedown::analysis {

struct IdentityRow {
    std::string node;
    std::string cpu_model;
    std::string gpu;  // the GPU's index on the node ("0"), "none" for a node without GPUs
    std::string gpu_model;
    std::string gpu_uuid;
    std::string gpu_serial;
    std::string driver;
    std::string vbios;
    std::string nic_firmware;  // "mlx5_0 28.39.1002, mlx5_1 28.39.1002"
};

// One row per GPU of every node (GPUs as NVML saw them, else as the CUDA runtime did), one row for
// a node without any, in the observations' node order.
std::vector<IdentityRow> hardware_identity(const Observations& observations, RunDetails& details);

}  // namespace shakedown::analysis
