// `shakedown inventory`: the inventory JSON as a page a person reads. Tolerates missing keys,
// since it may format an inventory read back from another node's trace.
#include "inventory/inventory.hpp"
#include "core/json_text.hpp"

#include <fmt/format.h>

#include <iterator>

namespace shakedown {
namespace {

using json = nlohmann::json;

std::string text(const json& object, const char* key, const char* fallback = "?") {
    if (!object.is_object() || !object.contains(key) || object[key].is_null()) return fallback;
    const json& value = object[key];
    return value.is_string() ? value.get<std::string>() : json_text(value);
}

double number(const json& object, const char* key, double fallback = 0.0) {
    if (!object.is_object() || !object.contains(key) || !object[key].is_number()) return fallback;
    return object[key].get<double>();
}

std::string gib(double bytes) { return fmt::format("{:.1f} GiB", bytes / (1024.0 * 1024.0 * 1024.0)); }

std::string joined(const json& array, const char* separator = " ") {
    std::string out;
    if (!array.is_array()) return out;
    for (const auto& item : array) {
        if (!out.empty()) out += separator;
        out += item.is_string() ? item.get<std::string>() : json_text(item);
    }
    return out;
}

void format_gpu(std::back_insert_iterator<std::string> out, const json& gpu) {
    fmt::format_to(out, "  gpu{}  {}  {} SMs  cc {}  {} MHz  {}  bus {}\n", text(gpu, "index"), text(gpu, "name"),
                   text(gpu, "sm_count"), text(gpu, "compute_capability"), text(gpu, "max_sm_clock_mhz"),
                   gib(number(gpu, "memory_bytes")), text(gpu, "pci_bus_id"));
    fmt::format_to(out, "        uuid {}\n", text(gpu, "uuid"));
    if (gpu.contains("nvml")) {
        const json& n = gpu["nvml"];
        fmt::format_to(out, "        PCIe gen {} x{} (max gen {} x{})  NVLink active {}  power limit {} W  {} C  "
                            "ECC agg corrected {} uncorrected {}\n",
                       text(n, "pcie_generation_current"), text(n, "pcie_width_current"), text(n, "pcie_generation_max"),
                       text(n, "pcie_width_max"), text(n, "nvlink_active_links"), text(n, "power_limit_w"),
                       text(n, "temperature_c"), text(n, "ecc_corrected_aggregate"), text(n, "ecc_uncorrected_aggregate"));
    }
}

}  // namespace

std::string format_inventory(const json& inventory) {
    std::string page;
    auto out = std::back_inserter(page);
    const json empty = json::object();
    const json& os = inventory.contains("os") ? inventory["os"] : empty;
    const json& cpu = inventory.contains("cpu") ? inventory["cpu"] : empty;
    const json& memory = inventory.contains("memory") ? inventory["memory"] : empty;
    const json& blas = inventory.contains("blas") ? inventory["blas"] : empty;

    fmt::format_to(out, "node      {}\n", text(inventory, "node"));
    fmt::format_to(out, "os        {}, kernel {} ({})\n", text(os, "pretty_name"), text(os, "kernel"), text(os, "machine"));
    fmt::format_to(out, "cpu       {}\n", text(cpu, "model"));
    fmt::format_to(out, "          {} socket(s), {} cores, {} PUs ({} allowed), {} NUMA node(s), max {:.0f} MHz ({})\n",
                   text(cpu, "sockets"), text(cpu, "cores"), text(cpu, "pus"), text(cpu, "allowed_pus"),
                   text(cpu, "numa_nodes"), number(cpu, "max_mhz"), text(cpu, "max_mhz_source"));
    fmt::format_to(out, "          vector ISA: {}\n", joined(cpu.value("vector_flags", json::array())));
    fmt::format_to(out, "memory    {} total", gib(number(memory, "total_bytes")));
    for (const auto& node : memory.value("numa", json::array()))
        fmt::format_to(out, ", NUMA{} {}", text(node, "index"), gib(number(node, "bytes")));
    fmt::format_to(out, "\n");

    fmt::format_to(out, "blas      {}", text(blas, "library", "none"));
    if (!text(blas, "openblas_core", "").empty())
        fmt::format_to(out, "  (OpenBLAS core {}, {} threads; {})", text(blas, "openblas_core"),
                       text(blas, "openblas_threads"), text(blas, "openblas_config"));
    fmt::format_to(out, "\n");

    const json gpus = inventory.value("gpus", json::array());
    if (gpus.empty())
        fmt::format_to(out, "gpus      none ({})\n", text(inventory, "gpu_runtime_error", "no device"));
    else
        fmt::format_to(out, "gpus      {}\n", gpus.size());
    for (const auto& gpu : gpus) format_gpu(out, gpu);
    const json& nvml = inventory.contains("nvml") ? inventory["nvml"] : empty;
    if (nvml.value("loaded", false))
        fmt::format_to(out, "nvml      driver {}, {} device(s)\n", text(nvml, "driver_version"), text(nvml, "device_count"));
    else
        fmt::format_to(out, "nvml      not loaded ({})\n", text(nvml, "reason", "unknown"));

    fmt::format_to(out, "network\n");
    for (const auto& nic : inventory.value("network", json::array()))
        fmt::format_to(out, "  {:<16} mtu {:>6}  speed {:>7} Mb/s  {:<8} {:<10} {}\n", text(nic, "name"), text(nic, "mtu"),
                       text(nic, "speed_mbps"), text(nic, "operstate"), text(nic, "type"), text(nic, "address"));

    const json rdma = inventory.value("rdma", json::array());
    fmt::format_to(out, "rdma      {}\n", rdma.empty() ? "none" : std::to_string(rdma.size()) + " device(s)");
    for (const auto& hca : rdma) {
        fmt::format_to(out, "  {}  fw {}\n", text(hca, "name"), text(hca, "fw_ver"));
        for (const auto& port : hca.value("ports", json::array()))
            fmt::format_to(out, "    port {}  {}  {} {} = {} Gb/s  mtu {}  {}\n", text(port, "port"), text(port, "state"),
                           text(port, "speed"), text(port, "width"), text(port, "rate_gbps"), text(port, "active_mtu"),
                           text(port, "link_layer"));
    }

    const json pci = inventory.contains("pci") ? inventory["pci"] : empty;
    const json devices = pci.value("devices", json::array());
    fmt::format_to(out, "pci       {} device(s){}\n", devices.size(),
                   number(pci, "omitted") > 0 ? fmt::format(" (+{} omitted)", text(pci, "omitted")) : "");
    for (const auto& device : devices) {
        fmt::format_to(out, "  {}  {:<14} {}:{}  numa {}", text(device, "bus_id"), text(device, "class"),
                       text(device, "vendor_id"), text(device, "device_id"), text(device, "numa_node"));
        if (device.contains("link_gbytes_per_s")) fmt::format_to(out, "  {:.1f} GB/s", number(device, "link_gbytes_per_s"));
        const std::string os_devices = joined(device.value("os_devices", json::array()), ",");
        if (!os_devices.empty()) fmt::format_to(out, "  [{}]", os_devices);
        fmt::format_to(out, "\n");
    }

    fmt::format_to(out, "versions\n");
    const json versions = inventory.value("versions", json::object());  // items() must not outlive it
    for (const auto& [name, version] : versions.items())
        fmt::format_to(out, "  {:<14} {}\n", name, version.is_string() ? version.get<std::string>() : json_text(version));
    fmt::format_to(out, "collected in {:.3f} s\n", number(inventory, "collect_seconds"));
    return page;
}

}  // namespace shakedown
