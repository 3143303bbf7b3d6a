#include "comm/congestion_ring_columns.hpp"
#include "mpi/specs.hpp"

#include "core/errors.hpp"
#include "core/registry.hpp"

#include <fmt/format.h>

namespace shakedown::mpi {
namespace {

constexpr std::int64_t most_congestion_counts = 1'000'000;

void check_congestion(const TestParams& params, int /*world_size*/) {
    // The declaration holds the open lower bound; the upper one is open too (no measuring rank
    // would be left), which a single bound cannot say.
    const double fraction = params.real("congestor_fraction");
    if (fraction >= 1.0)
        throw InputError(fmt::format("'params.congestion.congestor_fraction' must be above 0 and below 1, got {}",
                                     fraction));
}

}  // namespace

const TestSpec& congestion_spec() {
    static const TestSpec spec{
        .key = std::string(congestion_ring_columns::tests[0]),
        .description = "GPCNeT-style: random-ring latency and bandwidth with and without congestors on the other ranks, "
                       "validated; congestion impact factor job-wide and per node",
        .suites = {"full"},
        .parameters =
            {
                ParamSpec::integer("latency_bytes", 8, "random-ring latency message size").between(1, std::int64_t{1} << 20),
                ParamSpec::integer("latency_iterations", 200, "timed ring exchanges per phase")
                    .between(1, most_congestion_counts),
                ParamSpec::integer("latency_warmup", 20, "untimed ring exchanges before them")
                    .between(0, most_congestion_counts),
                ParamSpec::integer("bandwidth_bytes", 131072, "random-ring bandwidth message size")
                    .between(1, std::int64_t{1} << 26),
                ParamSpec::integer("bandwidth_window", 8, "messages in flight to the ring neighbour per iteration")
                    .between(1, 256),
                ParamSpec::integer("bandwidth_iterations", 20, "timed windows per phase").between(1, most_congestion_counts),
                ParamSpec::integer("bandwidth_warmup", 2, "untimed windows before them").between(0, most_congestion_counts),
                ParamSpec::names("congestors", {"alltoall", "incast", "broadcast"}, {"alltoall", "incast", "broadcast"},
                                 "traffic the congesting ranks run, in turn, while the others measure"),
                ParamSpec::real("congestor_fraction", 0.5,
                                "share of each node's ranks (of the nodes, one rank per node) that congest")
                    .above(0.0),
                ParamSpec::integer("alltoall_bytes", 4096, "alltoall congestor: bytes to every other congesting rank")
                    .between(1, std::int64_t{1} << 24),
                ParamSpec::integer("congestor_bytes", 131072, "incast and broadcast congestors: message size")
                    .between(1, std::int64_t{1} << 26),
                ParamSpec::integer("incast_targets", 2, "incast congestor: congesting ranks every other one sends to")
                    .between(1, 1024),
                ParamSpec::integer("seed", 1, "random ring order (the same on every rank)")
                    .between(0, std::int64_t{1} << 40),
                ParamSpec::integer("rings", 3,
                                   "random rings measured in each phase, each with other neighbours where the ranks allow: "
                                   "what lets the analyzer tell a node whose links degrade from its ring neighbours")
                    .between(1, 64),
            },
        .metrics =
            {
                {"congestion.{latency_p50,latency_p99,bandwidth}_impact", "ratio", Better::lower,
                 "rank 0: congested over baseline (bandwidth: baseline over congested), the median over the measuring "
                 "ranks and rings; 1 is no impact, above 1 worse",
                 MetricScope::job},
                {"congestion.node_{latency_p50,latency_p99,bandwidth}_impact", "ratio", Better::lower,
                 "this node's impact factor (median over its measuring ranks and rings), on the node's first measuring "
                 "rank"},
                {"congestion.{baseline,congested}_latency_{p50,p99}_us", "us", Better::lower,
                 "rank 0: the measuring ranks' median ring-exchange time, p50 and p99 over iterations", MetricScope::job},
                {"congestion.{baseline,congested}_bandwidth_gbs", "GB/s", Better::higher,
                 "rank 0: the measuring ranks' median ring bandwidth", MetricScope::job},
            },
        .samples = congestion_ring_columns::columns(),
        .default_deadline_s = 900.0,
        .min_ranks = 4,
        .check_parameters = check_congestion,
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(congestion_spec);

}  // namespace shakedown::mpi
