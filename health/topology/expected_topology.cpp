#include "health/topology/expected_topology.hpp"

#include "health/topology/pci_path.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace shakedown::health {
namespace {

bool is_nvlink_label(const std::string& label) {
    if (label.rfind("NV", 0) != 0) return false;
    if (label.size() == 2) return true;
    return label.find_first_not_of("0123456789", 2) == std::string::npos;
}

template <typename T>
T value_of(const YAML::Node& node, const std::string& key, const std::string& text) {
    try {
        return node.as<T>();
    } catch (const YAML::Exception&) {
        throw InputError(fmt::format("topology: expected '{}': value of '{}' has the wrong type", text, key));
    }
}

}  // namespace

ExpectedTopology parse_expected_topology(const std::string& text) {
    ExpectedTopology expected;
    if (text.empty()) return expected;
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::Exception& error) {
        throw InputError(fmt::format("topology: expected '{}' is not YAML: {}", text, error.msg));
    }
    if (!root.IsMap())
        throw InputError(fmt::format("topology: expected '{}' must be a map like '{{gpu_pairs: NV18, pcie_gen: 5}}'", text));
    for (const auto& entry : root) {
        const auto key = entry.first.as<std::string>();
        if (key == "gpus") {
            expected.gpus = value_of<int>(entry.second, key, text);
        } else if (key == "gpu_pairs" || key == "gpu_nic") {
            const auto label = value_of<std::string>(entry.second, key, text);
            const bool nvlink_allowed = key == "gpu_pairs";
            if (!(nvlink_allowed && is_nvlink_label(label)) && (label.rfind("NV", 0) == 0 || path_rank(label) < 0))
                throw InputError(fmt::format("topology: expected {} '{}' is not {}PIX, PXB, PHB, NODE or SYS", key, label,
                                             nvlink_allowed ? "NV<n>, NV, " : ""));
            (key == "gpu_pairs" ? expected.gpu_pairs : expected.gpu_nic) = label;
        } else if (key == "pcie_gen") {
            expected.pcie_gen = value_of<int>(entry.second, key, text);
            if (*expected.pcie_gen < 1 || *expected.pcie_gen > 7)
                throw InputError(fmt::format("topology: expected pcie_gen {} is not 1..7", *expected.pcie_gen));
        } else if (key == "pcie_width") {
            expected.pcie_width = value_of<int>(entry.second, key, text);
            if (*expected.pcie_width < 1 || *expected.pcie_width > 32)
                throw InputError(fmt::format("topology: expected pcie_width {} is not 1..32", *expected.pcie_width));
        } else {
            throw InputError(fmt::format("topology: expected '{}': unknown key '{}' (known: gpus, gpu_pairs, gpu_nic, "
                                         "pcie_gen, pcie_width)",
                                         text, key));
        }
    }
    return expected;
}

bool pair_meets(const std::string& measured, const std::string& expected) {
    if (expected == "NV") return measured.rfind("NV", 0) == 0;
    if (expected.rfind("NV", 0) == 0) return measured == expected;
    const int have = path_rank(measured), want = path_rank(expected);
    return have >= 0 && have <= want;  // NVLink (rank 0) beats any PCIe kind
}

}  // namespace shakedown::health
