#include "health/network/tcp_bandwidth_names.hpp"
#include "health/specs.hpp"

#include "core/registry.hpp"

namespace shakedown::health {

const TestSpec& tcp_bandwidth_spec() {
    namespace names = tcp_bandwidth_names;
    static const TestSpec spec{
        .key = std::string(names::key),
        .description = "TCP throughput per Ethernet interface between node pairs (one pair per node per round): each "
                       "direction alone and both at once over parallel streams, every byte checked, and the round trip",
        .suites = {"full", "pairwise"},
        .parameters =
            {
                ParamSpec::names("interfaces", {}, {},
                                 "interfaces to measure, by name (empty: every physical interface that is up with an "
                                 "IPv4 address, else the job interface as network_mtu chooses it)"),
                ParamSpec::integer("streams", 8, "parallel TCP connections per direction").between(1, 128),
                ParamSpec::real("seconds", 2.0, "time each direction (and both at once) is sent").between(0.05, 600.0),
                ParamSpec::integer("round_trips", 200, "timed one-byte echoes per pair").between(1, 1'000'000),
                ParamSpec::integer("port", automatic,
                                   "first TCP port of the range each node listens in (a firewall's opening)")
                    .between(1, 65535)
                    .allow_auto("a free port the kernel picks"),
                ParamSpec::integer("port_range", 16,
                                   "ports from `port` on that a listener may take: each interface takes the first "
                                   "free one; all taken refuses the node")
                    .between(1, 65535),
                ParamSpec::choice("scope", "nodes", {"nodes", "ranks"},
                                  "nodes: each node's leader (its lowest rank) measures; ranks: every rank (ranks on one "
                                  "node then measure through that node's own stack)"),
            },
        .metrics =
            {
                {std::string(names::send_gbits_min), "Gbit/s", Better::higher,
                 "the slowest peer this node sent to, one direction at a time; nominal: the interface's line rate"},
                {std::string(names::send_gbits_median), "Gbit/s", Better::higher, "the median over its peers"},
                {std::string(names::send_gbits_max), "Gbit/s", Better::higher,
                 "the fastest peer: above the line rate of a physical interface it cannot be true", MetricScope::rank,
                 PhysicalBound::nominal},
                {std::string(names::receive_gbits_min), "Gbit/s", Better::higher, "the slowest peer it received from"},
                {std::string(names::receive_gbits_median), "Gbit/s", Better::higher, "the median over its peers"},
                {std::string(names::duplex_gbits_min), "Gbit/s", Better::higher,
                 "the slower direction of its slowest pair while both directions ran at once"},
                {std::string(names::link_min_gbs), "GB/s", Better::higher,
                 "its slowest direction alone (sent or received), in the link matrix's unit"},
                {std::string(names::link_median_gbs), "GB/s", Better::higher, "the median of its directions alone"},
                {std::string(names::rtt_p50_us), "us", Better::lower, "TCP round trip of one byte: median over its peers"},
                {std::string(names::rtt_p99_us), "us", Better::lower, "the 99th percentile, its worst peer"},
            },
        .samples = names::sample_columns(),
        .default_deadline_s = 1800.0,
        .min_ranks = 2,
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(tcp_bandwidth_spec);

}  // namespace shakedown::health
