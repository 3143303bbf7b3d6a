#include "ib/specs.hpp"

#include "core/errors.hpp"
#include "core/registry.hpp"

#include <fmt/format.h>

namespace shakedown::ib {
namespace {

void check_ib_inventory(const TestParams& params, int /*world_size*/) {
    const auto mtu = params.optional_integer("expected_mtu");
    if (mtu && *mtu != 256 && *mtu != 512 && *mtu != 1024 && *mtu != 2048 && *mtu != 4096)
        throw InputError(fmt::format("parameter 'expected_mtu' must be auto or one of 256, 512, 1024, 2048, 4096, got {}",
                                     *mtu));
}

}  // namespace

const TestSpec& ib_inventory_spec() {
    static const TestSpec spec{
        .key = "ib_inventory",
        .description = "RDMA HCAs and ports (rate, MTU, link layer, GIDs, firmware, NUMA) checked against expectations; "
                       "port error counters before/after",
        .suites = {"quick", "full"},
        .parameters =
            {
                ParamSpec::real("expected_rate_gbps", automatic, "lowest acceptable port rate in Gb/s")
                    .allow_auto("not checked")
                    .above(0),
                ParamSpec::integer("expected_mtu", automatic, "expected active MTU in bytes")
                    .allow_auto("not checked")
                    .between(256, 4096),
                ParamSpec::choice("expected_state", "ACTIVE", {"ACTIVE", "DOWN", "INIT", "ARMED", "any"},
                                  "expected port state (any: not checked)"),
                ParamSpec::real("counter_window_s", 1.0, "seconds between the two error-counter readings").between(0, 3600),
            },
        .metrics =
            {
                {"ib_inventory.active_ports", "count", Better::higher, "ports in state ACTIVE, nominal: every port"},
                {"ib_inventory.min_port_rate_gbps", "Gb/s", Better::higher, "the slowest active port's rate"},
                {"ib_inventory.error_counter_growth", "count", Better::lower, "error counter increments in the window"},
            },
        .samples = {{"t", "s"},
                    {"port_index", "index"},
                    {"rate_gbps", "Gb/s"},
                    {"active_mtu", "B"},
                    {"active", "flag"},
                    {"roce_v2_gids", "count"},
                    {"error_counters_total", "count"}},
        .default_deadline_s = 60.0,
        .check_parameters = check_ib_inventory,
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(ib_inventory_spec);

}  // namespace shakedown::ib
