#include "health/specs.hpp"

#include "core/registry.hpp"

namespace shakedown::health {

const TestSpec& network_mtu_spec() {
    static const TestSpec spec{
        .key = "network_mtu",
        .description = "Interface MTU/speed vs expected, MTU agreement across nodes, path MTU between node leaders (DF probes)",
        .suites = {"quick", "full"},
        .parameters =
            {
                ParamSpec::text("interface", automatic, "job interface").allow_auto("the default route's, else the first one up"),
                ParamSpec::integer("expected_mtu", automatic, "MTU every selected interface must have").allow_auto("not checked").between(68, 65536),
                ParamSpec::integer("expected_speed_mbps", automatic, "speed every selected interface must have")
                    .allow_auto("not checked")
                    .between(1, 100'000'000),
                ParamSpec::text("interfaces", automatic, "fnmatch pattern of interfaces expected_* apply to").allow_auto("the job interface"),
                ParamSpec::text("interface_mtu", "", "per-interface MTUs as a YAML map, e.g. '{eth0: 9000, ib0: 4096}' (empty: none)"),
                ParamSpec::integer("probe_timeout_ms", 200, "wait for each probe's echo").between(1, 600'000),
                ParamSpec::integer("probe_attempts", 2, "sends per size before it counts as too big").between(1, 100),
            },
        .metrics =
            {
                {"network_mtu.interface_mtu_bytes", "B", Better::higher, "the job interface's MTU"},
                {"network_mtu.path_mtu_bytes", "B", Better::higher, "largest unfragmented packet to the next node, nominal: the MTU"},
            },
        .samples = {{"interface", "index"}, {"mtu", "B"}, {"speed_mbps", "Mb/s"}, {"up", "bool"}},
        .default_deadline_s = 120.0,
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(network_mtu_spec);

}  // namespace shakedown::health
