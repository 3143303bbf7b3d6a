// Built without CUDA: the GPUs NVML reports (a CPU-only build on a GPU node still records
// them). Fields only the CUDA runtime knows (SM count, bus width) are null.
#include "inventory/inventory_sections.hpp"

namespace shakedown::inventory_detail {

nlohmann::json gpu_section(const Nvml* nvml, std::string& runtime_error) {
    nlohmann::json gpus = nlohmann::json::array();
    runtime_error = "built without CUDA";
    if (nvml == nullptr) return gpus;
    for (unsigned index = 0; index < nvml->device_count(); ++index) {
        const auto device = nvml->device(index);
        if (!device) continue;
        const nlohmann::json facts = nvml_gpu_facts(*device);
        gpus.push_back({{"index", index},
                        {"name", facts["name"]},
                        {"uuid", facts["uuid"]},
                        {"pci_bus_id", facts["pci_bus_id"]},
                        {"sm_count", nullptr},
                        {"compute_capability", facts["compute_capability"]},
                        {"max_sm_clock_mhz", facts["max_sm_clock_mhz"]},
                        {"memory_clock_mhz", facts["max_memory_clock_mhz"]},
                        {"memory_bus_width_bits", nullptr},
                        {"memory_bytes", facts["memory_bytes"]},
                        {"nvml", facts}});
    }
    return gpus;
}

}  // namespace shakedown::inventory_detail
