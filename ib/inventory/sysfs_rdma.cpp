#include "ib/inventory/sysfs_rdma.hpp"

#include "core/printable_text.hpp"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <system_error>

namespace shakedown::ib {
namespace fs = std::filesystem;
namespace {

std::string first_line_of(const fs::path& file) {
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    while (!line.empty() && (line.back() == '\n' || line.back() == ' ' || line.back() == '\r')) line.pop_back();
    return line;
}

template <typename Number>
std::optional<Number> number_in(const std::string& text) {
    Number value{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
}

fs::path port_dir(const fs::path& root, const std::string& device, int port) {
    return root / device / "ports" / std::to_string(port);
}

}  // namespace

PortCounters read_port_counters(const fs::path& root, const std::string& device, int port) {
    PortCounters counters;
    for (const char* folder : {"counters", "hw_counters"}) {
        std::error_code error;
        for (const auto& entry : fs::directory_iterator(port_dir(root, device, port) / folder, error)) {
            if (const auto value = number_in<std::uint64_t>(first_line_of(entry.path())))
                counters.emplace(entry.path().filename().string(), *value);
        }
    }
    return counters;
}

std::string read_gid_type(const fs::path& root, const std::string& device, int port, int index) {
    return first_line_of(port_dir(root, device, port) / "gid_attrs" / "types" / std::to_string(index));
}

std::string read_gid_netdev(const fs::path& root, const std::string& device, int port, int index) {
    return first_line_of(port_dir(root, device, port) / "gid_attrs" / "ndevs" / std::to_string(index));
}

int read_numa_node(const fs::path& root, const std::string& device) {
    return number_in<int>(first_line_of(root / device / "device" / "numa_node")).value_or(-1);
}

std::string read_pci_address(const fs::path& root, const std::string& device) {
    std::error_code error;
    const auto target = fs::read_symlink(root / device / "device", error);
    return error ? std::string() : target.filename().string();
}

int pci_numa_node(const std::string& pci_bus_id, const fs::path& pci_root) {
    const std::string id = ascii_lower(pci_bus_id);
    return number_in<int>(first_line_of(pci_root / id / "numa_node")).value_or(-1);
}

int current_cpu_numa_node(const fs::path& cpu_root) {
    const int cpu = sched_getcpu();
    if (cpu < 0) return -1;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(cpu_root / ("cpu" + std::to_string(cpu)), error)) {
        const auto name = entry.path().filename().string();
        if (name.rfind("node", 0) == 0)
            if (const auto node = number_in<int>(name.substr(4))) return *node;
    }
    return -1;
}

}  // namespace shakedown::ib
