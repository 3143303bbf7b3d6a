#include "analysis/report/hardware_identity.hpp"

#include "analysis/report/report_header.hpp"

namespace shakedown::analysis {
namespace {

using json = nlohmann::json;

// The inventory's keys (inventory/inventory.hpp). Serial and VBIOS are NVML's facts (null, with a
// `serial_reason`, where NVML declined: shown "not recorded"); inventories from before they were
// collected have neither key. The runtime's gpus[] list (NVML not loaded) has neither either.
namespace keys {
constexpr const char* cpu = "cpu";
constexpr const char* model = "model";
constexpr const char* gpus = "gpus";
constexpr const char* nvml = "nvml";
constexpr const char* devices = "devices";
constexpr const char* name = "name";
constexpr const char* uuid = "uuid";
constexpr const char* index = "index";
constexpr const char* nvml_index = "nvml_index";
constexpr const char* serial = "serial";
constexpr const char* vbios = "vbios_version";
constexpr const char* driver = "driver_version";
constexpr const char* versions = "versions";
constexpr const char* nvidia_driver = "nvidia_driver";
constexpr const char* rdma = "rdma";
constexpr const char* fw_ver = "fw_ver";
}  // namespace keys

const json& member(const json& object, const char* key) {
    static const json null_value;  // immutable: what an absent key reads as
    return object.is_object() && object.contains(key) ? object[key] : null_value;
}

std::string text(const json& value) {
    if (value.is_string()) return value.get<std::string>().empty() ? std::string(not_recorded) : value.get<std::string>();
    if (value.is_number()) return value.dump();
    return not_recorded;
}

std::string nic_firmware(const json& inventory) {
    std::string joined;
    const json& hcas = member(inventory, keys::rdma);
    if (!hcas.is_array()) return not_recorded;
    for (const json& hca : hcas) {
        if (!joined.empty()) joined += ", ";
        joined += text(member(hca, keys::name)) + " " + text(member(hca, keys::fw_ver));
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
        base.cpu_model = text(member(member(inventory, keys::cpu), keys::model));
        const json& nvml = member(inventory, keys::nvml);
        base.driver = text(member(nvml, keys::driver));
        if (base.driver == not_recorded) base.driver = text(member(member(inventory, keys::versions), keys::nvidia_driver));
        base.nic_firmware = nic_firmware(inventory);
        // NVML lists every GPU of the node whatever the leader's CUDA visibility; the runtime's
        // list is what is left where NVML was not loaded.
        const json& nvml_devices = member(nvml, keys::devices);
        const bool from_nvml = nvml_devices.is_array() && !nvml_devices.empty();
        const json& gpus = from_nvml ? nvml_devices : member(inventory, keys::gpus);
        const std::size_t before = rows.size();
        if (gpus.is_array())
            for (const json& gpu : gpus) {
                IdentityRow row = base;
                row.gpu = text(member(gpu, from_nvml ? keys::nvml_index : keys::index));
                row.gpu_model = text(member(gpu, keys::name));
                row.gpu_uuid = text(member(gpu, keys::uuid));
                row.gpu_serial = text(member(gpu, keys::serial));
                row.vbios = text(member(gpu, keys::vbios));
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
