#include "analysis/report/hardware_identity.hpp"

#include "analysis/report/report_header.hpp"
#include "core/json_text.hpp"
#include "inventory/inventory_names.hpp"

namespace shakedown::analysis {
namespace {

using json = nlohmann::json;

// The inventory's keys (inventory/inventory_names.hpp). Serial and VBIOS are NVML's facts (null,
// with a `serial_reason`, where NVML declined: shown "not recorded"); inventories from before they
// were collected have neither key. The runtime's gpus[] list (NVML not loaded) has neither either.
namespace names = inventory_names;

std::string text(const json& value) {
    if (value.is_string()) return value.get<std::string>().empty() ? std::string(not_recorded) : value.get<std::string>();
    if (value.is_number()) return json_text(value);
    return not_recorded;
}

std::string nic_firmware(const json& inventory) {
    std::string joined;
    const json& hcas = json_member(inventory, names::rdma::section);
    if (!hcas.is_array()) return not_recorded;
    for (const json& hca : hcas) {
        if (!joined.empty()) joined += ", ";
        joined += text(json_member(hca, names::rdma::name)) + " " + text(json_member(hca, names::rdma::fw_ver));
    }
    return joined.empty() ? std::string(not_recorded) : joined;
}

}  // namespace

std::vector<IdentityRow> hardware_identity(const Observations& observations, RunDetails& details) {
    std::vector<IdentityRow> rows;
    for (const NodeRow& node : observations.nodes()) {
        const json& inventory = details.inventory(node.name);
        IdentityRow base;
        base.node = node.name;
        base.cpu_model = text(json_member(json_member(inventory, names::cpu::section), names::cpu::model));
        const json& nvml = json_member(inventory, names::nvml::section);
        base.driver = text(json_member(nvml, names::nvml::driver_version));
        if (base.driver == not_recorded)
            base.driver = text(json_member(json_member(inventory, names::versions::section), names::versions::nvidia_driver));
        base.nic_firmware = nic_firmware(inventory);
        // NVML lists every GPU of the node whatever the leader's CUDA visibility; the runtime's
        // list is what is left where NVML was not loaded.
        const json& nvml_devices = json_member(nvml, names::nvml::devices);
        const bool from_nvml = nvml_devices.is_array() && !nvml_devices.empty();
        const json& gpus = from_nvml ? nvml_devices : json_member(inventory, names::gpu::section);
        const std::size_t before = rows.size();
        if (gpus.is_array())
            for (const json& gpu : gpus) {
                IdentityRow row = base;
                row.gpu = text(json_member(gpu, from_nvml ? names::nvml::nvml_index : names::gpu::index));
                row.gpu_model = text(json_member(gpu, names::gpu::name));
                row.gpu_uuid = text(json_member(gpu, names::gpu::uuid));
                row.gpu_serial = text(json_member(gpu, names::nvml::serial));
                row.vbios = text(json_member(gpu, names::nvml::vbios_version));
                rows.push_back(std::move(row));
            }
        if (rows.size() == before) {
            base.gpu = inventory.is_object() ? "none" : not_recorded;
            base.gpu_model = base.gpu_uuid = base.gpu_serial = base.vbios = base.gpu;
            if (!inventory.is_object()) base.driver = not_recorded;
            rows.push_back(std::move(base));
        }
    }
    return rows;
}

}  // namespace shakedown::analysis
