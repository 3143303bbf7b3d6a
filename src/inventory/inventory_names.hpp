// The inventory's keys that readers rely on, declared once: the collector writes them
// (inventory/*.cpp), the analyzer reads them (the hardware identity, the BLAS kernel rule, the
// configuration agreement rule) and the synthetic run fakes them. Header-only, no library: the
// analyzer needs the names, not the collector. The full layout is in inventory.hpp.
#pragma once

namespace shakedown::inventory_names {

namespace os {
inline constexpr const char* section = "os";
inline constexpr const char* pretty_name = "pretty_name";  // /etc/os-release PRETTY_NAME
inline constexpr const char* kernel = "kernel";            // uname -r
}  // namespace os

// The board's firmware as the kernel reports it (/sys/class/dmi/id); absent where there is none.
namespace board {
inline constexpr const char* section = "board";
inline constexpr const char* vendor = "vendor";
inline constexpr const char* product = "product";
inline constexpr const char* bios_version = "bios_version";
}  // namespace board

namespace cpu {
inline constexpr const char* section = "cpu";
inline constexpr const char* model = "model";
inline constexpr const char* flags = "flags";
}  // namespace cpu

namespace blas {
inline constexpr const char* section = "blas";
inline constexpr const char* openblas_core = "openblas_core";
inline constexpr const char* openblas_coretype_env = "openblas_coretype_env";
}  // namespace blas

// gpus[]: the GPUs the rank's runtime sees; nvml.devices[]: every GPU NVML sees on the node.
namespace gpu {
inline constexpr const char* section = "gpus";
inline constexpr const char* index = "index";
inline constexpr const char* name = "name";
inline constexpr const char* uuid = "uuid";
inline constexpr const char* nvml = "nvml";
}  // namespace gpu

namespace nvml {
inline constexpr const char* section = "nvml";
inline constexpr const char* driver_version = "driver_version";
inline constexpr const char* devices = "devices";
inline constexpr const char* nvml_index = "nvml_index";
inline constexpr const char* serial = "serial";
inline constexpr const char* vbios_version = "vbios_version";
}  // namespace nvml

namespace rdma {
inline constexpr const char* section = "rdma";
inline constexpr const char* name = "name";
inline constexpr const char* fw_ver = "fw_ver";
}  // namespace rdma

namespace versions {
inline constexpr const char* section = "versions";
inline constexpr const char* shakedown = "shakedown";
inline constexpr const char* mpi = "mpi";
inline constexpr const char* cuda = "cuda";
inline constexpr const char* nvidia_driver = "nvidia_driver";
inline constexpr const char* nccl = "nccl";
inline constexpr const char* kokkos = "kokkos";
}  // namespace versions

}  // namespace shakedown::inventory_names
