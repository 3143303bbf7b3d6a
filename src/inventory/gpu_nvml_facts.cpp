// What NVML knows about a GPU beyond the CUDA runtime: the enforced power limit, PCIe link
// as trained against its maximum, active NVLink links, ECC totals, temperature; the board's serial
// and VBIOS version (the report's hardware identity table).
#include "inventory/inventory_sections.hpp"

#include "inventory/inventory_names.hpp"

namespace shakedown::inventory_detail {
namespace {

template <typename T>
nlohmann::json or_null(const std::optional<T>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// `key` holds the text or null; where null, `key`_reason says why (the NVML return code, or the
// symbol missing), so "not recorded" in a report can be told from "not asked".
void put_text(nlohmann::json& facts, const std::string& key, const NvmlText& answer) {
    facts[key] = or_null(answer.text);
    if (!answer.text) facts[key + "_reason"] = answer.why;
}

}  // namespace

nlohmann::json nvml_gpu_facts(const NvmlDevice& device) {
    const auto link = device.pcie_link();
    const auto pci = device.pci_info();
    const auto memory = device.memory();
    nlohmann::json facts = {
        {"nvml_index", device.index()},
        {"name", or_null(device.name())},
        {"uuid", or_null(device.uuid())},
        {"pci_bus_id", pci ? nlohmann::json(pci_bus_id(pci->domain, pci->bus, pci->device)) : nlohmann::json(nullptr)},
        {"compute_capability", or_null(device.compute_capability())},
        {"memory_bytes", memory ? nlohmann::json(memory->total) : nlohmann::json(nullptr)},
        {"max_sm_clock_mhz", or_null(device.max_clock_mhz(nvml_abi::clock_sm))},
        {"max_memory_clock_mhz", or_null(device.max_clock_mhz(nvml_abi::clock_mem))},
        {"power_limit_w", or_null(device.power_limit_w())},
        {"temperature_c", or_null(device.temperature_c())},
        // An idle GPU may train its link down to save power: compare current with maximum
        // under load, not at rest.
        {"pcie_generation_current", or_null(link.generation_current)},
        {"pcie_generation_max", or_null(link.generation_max)},
        {"pcie_width_current", or_null(link.width_current)},
        {"pcie_width_max", or_null(link.width_max)},
        {"nvlink_active_links", or_null(device.nvlink_active_links())},
        {"ecc_corrected_aggregate",
         or_null(device.ecc_errors(nvml_abi::memory_error_corrected, nvml_abi::ecc_aggregate))},
        {"ecc_uncorrected_aggregate",
         or_null(device.ecc_errors(nvml_abi::memory_error_uncorrected, nvml_abi::ecc_aggregate))},
    };
    put_text(facts, inventory_names::nvml::serial, device.serial());
    put_text(facts, inventory_names::nvml::vbios_version, device.vbios_version());
    return facts;
}

nlohmann::json nvml_section(const Nvml* nvml, const std::string& why_not_loaded) {
    if (nvml == nullptr) return {{"loaded", false}, {"reason", why_not_loaded}};
    // Every GPU of the node as NVML sees it, whatever this rank's CUDA visibility: what the node
    // has, for the expected profile (count, model, memory, bus ids, links).
    nlohmann::json devices = nlohmann::json::array();
    for (unsigned index = 0; index < nvml->device_count(); ++index)
        if (const auto device = nvml->device(index)) devices.push_back(nvml_gpu_facts(*device));
    return {{"loaded", true},
            {"library", nvml->library_path()},
            {inventory_names::nvml::driver_version, nvml->driver_version().value_or("")},
            {"device_count", nvml->device_count()},
            {inventory_names::nvml::devices, std::move(devices)}};
}

}  // namespace shakedown::inventory_detail
