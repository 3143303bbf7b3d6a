// InfiniBand speed and width codes as ibv_port_attr reports them (IBTA encodings, the same
// table ibstat uses to print "Rate: 400"). Kept free of verbs headers so it is testable and
// compiled everywhere.
#include "inventory/inventory_sections.hpp"

#include <array>

namespace shakedown::inventory_detail {
namespace {

struct IbSpeed {
    unsigned code;
    std::string_view name;
    double gbps_per_lane;
};

constexpr std::array<IbSpeed, 9> ib_speeds{{
    {1, "SDR", 2.5}, {2, "DDR", 5.0}, {4, "QDR", 10.0}, {8, "FDR10", 10.0}, {16, "FDR", 14.0},
    {32, "EDR", 25.0}, {64, "HDR", 50.0}, {128, "NDR", 100.0}, {256, "XDR", 200.0},
}};

constexpr std::array<std::pair<unsigned, unsigned>, 5> ib_widths{{{1, 1}, {2, 4}, {4, 8}, {8, 12}, {16, 2}}};

const IbSpeed* find_speed(unsigned code) {
    for (const auto& speed : ib_speeds)
        if (speed.code == code) return &speed;
    return nullptr;
}

}  // namespace

std::optional<unsigned> ib_width_lanes(unsigned width_code) {
    for (const auto& [code, lanes] : ib_widths)
        if (code == width_code) return lanes;
    return std::nullopt;
}

std::string ib_speed_name(unsigned speed_code) {
    const IbSpeed* speed = find_speed(speed_code);
    return speed != nullptr ? std::string(speed->name) : "code " + std::to_string(speed_code);
}

std::optional<double> ib_rate_gbps(unsigned speed_code, unsigned width_code) {
    const IbSpeed* speed = find_speed(speed_code);
    const auto lanes = ib_width_lanes(width_code);
    if (speed == nullptr || !lanes) return std::nullopt;
    return speed->gbps_per_lane * *lanes;
}

}  // namespace shakedown::inventory_detail
