#include "profile/node_check.hpp"

#include "core/printable_text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

namespace shakedown::profile {
namespace {

constexpr double gib = 1024.0 * 1024.0 * 1024.0;
constexpr double gpu_memory_slack = 0.98;   // drivers reserve a little of each GPU's memory
constexpr double node_memory_slack = 0.97;  // firmware and the kernel reserve some of the node's

bool contains_text(const std::string& text, const std::string& part) { return ascii_lower(text).find(ascii_lower(part)) != std::string::npos; }

// "00000000:19:00.0" (NVML) or "0000:19:00.0": the form sysfs and the profile use.
std::string canonical_bus_id(std::string id) {
    id = ascii_lower(id);
    constexpr std::size_t length = 12;
    return id.size() > length ? id.substr(id.size() - length) : id;
}

template <typename T>
std::optional<T> optional_of(const nlohmann::json& object, const char* key) {
    if (!object.is_object() || !object.contains(key) || object[key].is_null()) return std::nullopt;
    const auto& value = object[key];
    if constexpr (std::is_same_v<T, std::string>) {
        if (value.is_string()) return value.get<std::string>();
    } else {
        if (value.is_number()) return value.get<T>();
    }
    return std::nullopt;
}

NodeGpu gpu_from(const nlohmann::json& entry) {
    NodeGpu gpu;
    gpu.name = optional_of<std::string>(entry, "name").value_or("");
    gpu.uuid = optional_of<std::string>(entry, "uuid").value_or("");
    gpu.bus_id = canonical_bus_id(optional_of<std::string>(entry, "pci_bus_id").value_or(""));
    if (const auto bytes = optional_of<double>(entry, "memory_bytes")) gpu.memory_gib = *bytes / gib;
    // NVML's facts sit at the top of an NVML device entry, under "nvml" in a CUDA one.
    const nlohmann::json& nvml = entry.contains("nvml") && entry["nvml"].is_object() ? entry["nvml"] : entry;
    gpu.nvlinks = optional_of<int>(nvml, "nvlink_active_links");
    gpu.pcie_generation_max = optional_of<int>(nvml, "pcie_generation_max");
    gpu.pcie_width_max = optional_of<int>(nvml, "pcie_width_max");
    return gpu;
}

std::string describe(const NodeGpu& gpu) { return gpu.bus_id.empty() ? gpu.uuid : gpu.bus_id; }

void check_gpus(const NodeClass& expected, const NodeFacts& facts, std::vector<std::string>& lines) {
    const GpuExpectation& want = expected.gpu;
    const std::string model = want.model.value_or("");
    if (expected.gpus_per_node) {
        const int found = static_cast<int>(facts.gpus.size());
        if (found != *expected.gpus_per_node) {
            std::string line = fmt::format("{} of {} GPUs{} found", found, *expected.gpus_per_node,
                                           model.empty() ? "" : " (" + model + ")");
            std::set<std::string> present;
            for (const NodeGpu& gpu : facts.gpus) present.insert(gpu.bus_id);
            std::vector<std::string> missing;
            for (const std::string& id : want.bus_ids)
                if (!present.count(canonical_bus_id(id))) missing.push_back(canonical_bus_id(id));
            if (!missing.empty()) line += fmt::format("; missing {}", fmt::join(missing, ", "));
            lines.push_back(line);
        }
    }
    for (const NodeGpu& gpu : facts.gpus) {
        if (!model.empty() && !contains_text(gpu.name, model))
            lines.push_back(fmt::format("GPU {} is '{}', expected {}", describe(gpu), gpu.name, model));
        if (want.memory_gib && gpu.memory_gib && *gpu.memory_gib < gpu_memory_slack * *want.memory_gib)
            lines.push_back(fmt::format("GPU {} has {:.1f} GiB of memory, expected {:g}", describe(gpu), *gpu.memory_gib,
                                        *want.memory_gib));
        if (want.nvlinks && gpu.nvlinks && *gpu.nvlinks < *want.nvlinks)
            lines.push_back(fmt::format("GPU {} has {} active NVLink links, expected {}", describe(gpu), *gpu.nvlinks, *want.nvlinks));
        if (want.pcie_generation && gpu.pcie_generation_max && *gpu.pcie_generation_max < *want.pcie_generation)
            lines.push_back(fmt::format("GPU {} links at most PCIe Gen{}, expected Gen{}", describe(gpu), *gpu.pcie_generation_max,
                                        *want.pcie_generation));
        if (want.pcie_width && gpu.pcie_width_max && *gpu.pcie_width_max < *want.pcie_width)
            lines.push_back(fmt::format("GPU {} links at most x{}, expected x{}", describe(gpu), *gpu.pcie_width_max, *want.pcie_width));
    }
}

void check_hcas(const NodeClass& expected, const NodeFacts& facts, std::vector<std::string>& lines) {
    const HcaExpectation& want = expected.hcas;
    const std::vector<NodePort> active = facts.active_ports();
    if (want.count && static_cast<int>(active.size()) < *want.count) {
        std::vector<std::string> other;
        for (const NodePort& port : facts.ports)
            if (port.state != "PORT_ACTIVE" && port.state != "ACTIVE") other.push_back(fmt::format("{} port {} {}", port.hca, port.port, port.state));
        lines.push_back(fmt::format("{} of {} RDMA ports ACTIVE{}", active.size(), *want.count,
                                    other.empty() ? std::string() : fmt::format(" ({})", fmt::join(other, ", "))));
    }
    for (const NodePort& port : active) {
        const std::string name = fmt::format("{} port {}", port.hca, port.port);
        if (want.rate_gbps && port.rate_gbps && *port.rate_gbps < *want.rate_gbps)
            lines.push_back(fmt::format("{} runs at {:g} Gb/s, expected {:g}", name, *port.rate_gbps, *want.rate_gbps));
        if (want.link_layer && !contains_text(port.link_layer, *want.link_layer))
            lines.push_back(fmt::format("{} is {}, expected {}", name, port.link_layer, *want.link_layer));
        if (want.mtu && port.mtu && *port.mtu != *want.mtu)
            lines.push_back(fmt::format("{} has active MTU {}, expected {}", name, *port.mtu, *want.mtu));
    }
}

}  // namespace

std::vector<NodePort> NodeFacts::active_ports() const {
    std::vector<NodePort> active;
    for (const NodePort& port : ports)
        if (port.state == "PORT_ACTIVE" || port.state == "ACTIVE") active.push_back(port);
    return active;
}

NodeFacts node_facts(const nlohmann::json& inventory) {
    NodeFacts facts;
    if (!inventory.is_object()) return facts;
    const nlohmann::json& nvml = inventory.contains("nvml") ? inventory["nvml"] : nlohmann::json();
    if (nvml.is_object() && nvml.value("loaded", false) && nvml.contains("devices") && nvml["devices"].is_array()) {
        for (const auto& entry : nvml["devices"]) facts.gpus.push_back(gpu_from(entry));
    } else if (inventory.contains("gpus") && inventory["gpus"].is_array()) {
        for (const auto& entry : inventory["gpus"]) facts.gpus.push_back(gpu_from(entry));
    }
    if (inventory.contains("rdma") && inventory["rdma"].is_array())
        for (const auto& hca : inventory["rdma"]) {
            if (!hca.is_object() || !hca.contains("ports") || !hca["ports"].is_array()) continue;
            for (const auto& port : hca["ports"]) {
                NodePort entry;
                entry.hca = optional_of<std::string>(hca, "name").value_or("?");
                entry.port = optional_of<int>(port, "port").value_or(0);
                entry.state = optional_of<std::string>(port, "state").value_or("");
                entry.link_layer = optional_of<std::string>(port, "link_layer").value_or("");
                entry.rate_gbps = optional_of<double>(port, "rate_gbps");
                entry.mtu = optional_of<int>(port, "active_mtu");
                facts.ports.push_back(std::move(entry));
            }
        }
    if (inventory.contains("network") && inventory["network"].is_array())
        for (const auto& nic : inventory["network"]) {
            const std::string name = optional_of<std::string>(nic, "name").value_or("");
            if (name.empty() || name == "lo") continue;
            facts.nics.push_back({name, optional_of<int>(nic, "mtu").value_or(0),
                                  optional_of<std::string>(nic, "operstate").value_or("") == "up"});
        }
    if (inventory.contains("cpu") && inventory["cpu"].is_object()) {
        facts.cpu_model = optional_of<std::string>(inventory["cpu"], "model").value_or("");
        facts.cpu_cores = optional_of<int>(inventory["cpu"], "cores").value_or(0);
    }
    if (inventory.contains("memory") && inventory["memory"].is_object())
        facts.memory_gib = optional_of<double>(inventory["memory"], "total_bytes").value_or(0.0) / gib;
    return facts;
}

std::vector<std::string> differences(const NodeClass& expected, const NodeFacts& facts) {
    std::vector<std::string> lines;
    check_gpus(expected, facts, lines);
    check_hcas(expected, facts, lines);
    for (const NicExpectation& want : expected.nics) {
        const auto nic = std::find_if(facts.nics.begin(), facts.nics.end(), [&](const NodeNic& n) { return n.name == want.name; });
        if (nic == facts.nics.end()) lines.push_back(fmt::format("interface {} missing", want.name));
        else if (!nic->up) lines.push_back(fmt::format("interface {} is down", want.name));
        else if (want.mtu && nic->mtu != *want.mtu)
            lines.push_back(fmt::format("interface {} has MTU {}, expected {}", want.name, nic->mtu, *want.mtu));
    }
    if (expected.cpu_model && !contains_text(facts.cpu_model, *expected.cpu_model))
        lines.push_back(fmt::format("CPU is '{}', expected {}", facts.cpu_model, *expected.cpu_model));
    if (expected.cpu_cores && facts.cpu_cores < *expected.cpu_cores)
        lines.push_back(fmt::format("{} CPU cores found, expected {}", facts.cpu_cores, *expected.cpu_cores));
    if (expected.memory_gib && facts.memory_gib < node_memory_slack * *expected.memory_gib)
        lines.push_back(fmt::format("{:.1f} GiB of memory found, expected {:g}", facts.memory_gib, *expected.memory_gib));
    return lines;
}

}  // namespace shakedown::profile
