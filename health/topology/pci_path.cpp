#include "health/topology/pci_path.hpp"

#include <array>
#include <filesystem>

namespace shakedown::health {

int path_rank(const std::string& kind) {
    if (kind.rfind("NV", 0) == 0) return 0;
    constexpr std::array<const char*, 5> order{"PIX", "PXB", "PHB", "NODE", "SYS"};
    for (std::size_t i = 0; i < order.size(); ++i)
        if (kind == order[i]) return static_cast<int>(i) + 1;
    return -1;
}

std::vector<std::string> pci_ancestry(const std::string& sys_root, const std::string& bus_id) {
    std::error_code error;
    const auto device = std::filesystem::canonical(std::filesystem::path(sys_root) / "bus/pci/devices" / bus_id, error);
    if (error) return {};
    // Keep the components from the "pci<domain>:<bus>" root onwards.
    std::vector<std::string> chain;
    for (const auto& part : device) {
        const std::string name = part.string();
        if (chain.empty() && name.rfind("pci", 0) != 0) continue;
        chain.push_back(name);
    }
    return chain;
}

std::string pci_path_kind(const std::vector<std::string>& a, const std::vector<std::string>& b, int numa_a, int numa_b) {
    if (a.empty() || b.empty() || a.front() != b.front()) return numa_a >= 0 && numa_a == numa_b ? "NODE" : "SYS";
    std::size_t common = 0;  // shared leading components (the root counts)
    while (common < a.size() && common < b.size() && a[common] == b[common]) ++common;
    // Deepest shared component is the root itself, or the root port (depth 1): through the host bridge or its port.
    if (common <= 1) return "PHB";
    if (common == 2) return "PXB";  // below the same root port: at least a switch's up and down ports
    // Common ancestor inside a switch: one downstream port on each side is a single switch.
    const std::size_t below_a = a.size() - common, below_b = b.size() - common;
    return below_a <= 2 && below_b <= 2 ? "PIX" : "PXB";
}

}  // namespace shakedown::health
