#include "health/topology/pcie_link.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <fstream>

namespace shakedown::health {
namespace {

std::optional<std::string> first_line(const std::string& path) {
    std::ifstream file(path);
    std::string line;
    if (!std::getline(file, line)) return std::nullopt;
    return line;
}

// "32.0 GT/s PCIe" (newer kernels), "8 GT/s" or "8.0 GT/s" (older); "Unknown" for none.
std::optional<double> speed_of(const std::optional<std::string>& text) {
    if (!text) return std::nullopt;
    try {
        std::size_t used = 0;
        const double gts = std::stod(*text, &used);
        return gts > 0.0 ? std::optional<double>(gts) : std::nullopt;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::optional<int> width_of(const std::optional<std::string>& text) {
    if (!text) return std::nullopt;
    try {
        const int width = std::stoi(*text);
        return width > 0 && width <= 32 ? std::optional<int>(width) : std::nullopt;  // 255 = unknown
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

struct Generation {
    double gts;  // per lane
    int generation;
};
constexpr std::array<Generation, 7> generations{{
    {2.5, 1}, {5.0, 2}, {8.0, 3}, {16.0, 4}, {32.0, 5}, {64.0, 6}, {128.0, 7},
}};

}  // namespace

std::optional<int> pcie_generation(double gts) {
    for (const auto& g : generations)
        if (std::abs(g.gts - gts) < 0.01 * g.gts) return g.generation;
    return std::nullopt;
}

std::optional<double> pcie_rate_gts(int generation) {
    for (const auto& g : generations)
        if (g.generation == generation) return g.gts;
    return std::nullopt;
}

double pcie_nominal_gbs(int generation, int width) {
    for (const auto& g : generations)
        if (g.generation == generation) return g.gts * width / 8.0;
    return 0.0;
}

std::optional<int> PcieLinkState::generation_current() const {
    return speed_current_gts ? pcie_generation(*speed_current_gts) : std::nullopt;
}

std::optional<int> PcieLinkState::generation_max() const {
    return speed_max_gts ? pcie_generation(*speed_max_gts) : std::nullopt;
}

PcieLinkState read_pcie_link(const std::string& sys_root, const std::string& bus_id) {
    const std::string folder = fmt::format("{}/bus/pci/devices/{}/", sys_root, bus_id);
    return {speed_of(first_line(folder + "current_link_speed")), speed_of(first_line(folder + "max_link_speed")),
            width_of(first_line(folder + "current_link_width")), width_of(first_line(folder + "max_link_width"))};
}

std::string downtrained(const PcieLinkState& link, bool generation_may_idle) {
    std::string problem;
    if (link.width_current && link.width_max && *link.width_current < *link.width_max)
        problem = fmt::format("x{} of x{}", *link.width_current, *link.width_max);
    if (!generation_may_idle && link.speed_current_gts && link.speed_max_gts &&
        *link.speed_current_gts < 0.99 * *link.speed_max_gts) {
        const auto now = link.generation_current(), max = link.generation_max();
        const std::string slow = now && max ? fmt::format("Gen{} of Gen{}", *now, *max)
                                            : fmt::format("{:g} of {:g} GT/s", *link.speed_current_gts, *link.speed_max_gts);
        problem = problem.empty() ? slow : problem + ", " + slow;
    }
    return problem;
}

}  // namespace shakedown::health
