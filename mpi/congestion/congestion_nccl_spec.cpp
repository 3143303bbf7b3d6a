#include "comm/congestion_ring_columns.hpp"
#include "mpi/specs.hpp"

#include "core/errors.hpp"
#include "core/registry.hpp"

#include <fmt/format.h>

namespace shakedown::mpi {
namespace {

constexpr std::int64_t most_congestion_nccl_counts = 1'000'000;

void check_congestion_nccl(const TestParams& params, int /*world_size*/) {
    const double fraction = params.real("congestor_fraction");
    if (fraction >= 1.0)
        throw InputError(fmt::format("'params.congestion_nccl.congestor_fraction' must be above 0 and below 1, got {}",
                                     fraction));
}

}  // namespace

const TestSpec& congestion_nccl_spec() {
    static const TestSpec spec{
        .key = std::string(congestion_ring_columns::tests[1]),
        .description = "congestion with NCCL, one rank per GPU: a random ring of ncclSend/ncclRecv (latency, bandwidth) "
                       "alone and beside ncclAllToAll congestors; impact factor job-wide and per node, validated",
        .suites = {"full"},
        .parameters =
            {
                ParamSpec::integer("latency_bytes", 8, "ring message size for latency").between(4, std::int64_t{1} << 20),
                ParamSpec::integer("latency_iterations", 200, "timed ring exchanges per phase")
                    .between(1, most_congestion_nccl_counts),
                ParamSpec::integer("latency_warmup", 20, "untimed ones before them").between(0, most_congestion_nccl_counts),
                ParamSpec::integer("bandwidth_bytes", std::int64_t{8} << 20, "ring message size for bandwidth")
                    .between(4, std::int64_t{1} << 32),
                ParamSpec::integer("bandwidth_iterations", 50, "timed ring transfers per phase")
                    .between(1, most_congestion_nccl_counts),
                ParamSpec::integer("bandwidth_warmup", 5, "untimed ones before them")
                    .between(0, most_congestion_nccl_counts),
                ParamSpec::real("congestor_fraction", 0.5,
                                "share of each node's GPUs (of the nodes, one GPU per node) that congest")
                    .above(0.0),
                ParamSpec::integer("alltoall_bytes", std::int64_t{1} << 20,
                                   "ncclAllToAll congestor: bytes to every other congesting GPU")
                    .between(4, std::int64_t{1} << 30),
                ParamSpec::integer("seed", 1, "random ring order (the same on every rank)")
                    .between(0, std::int64_t{1} << 40),
            },
        .metrics =
            {
                {"congestion_nccl.{latency_p50,latency_p99,bandwidth}_impact", "ratio", Better::lower,
                 "rank 0: congested over baseline (bandwidth: baseline over congested), the median over the measuring GPUs",
                 MetricScope::job},
                {"congestion_nccl.node_{latency_p50,latency_p99,bandwidth}_impact", "ratio", Better::lower,
                 "this node's impact factor, on the node's first measuring rank"},
                {"congestion_nccl.{baseline,congested}_latency_{p50,p99}_us", "us", Better::lower,
                 "rank 0: the measuring GPUs' median ring time, p50 and p99 over iterations", MetricScope::job},
                {"congestion_nccl.{baseline,congested}_bandwidth_gbs", "GB/s", Better::higher,
                 "rank 0: the measuring GPUs' median ring bandwidth", MetricScope::job},
            },
        .samples = congestion_ring_columns::columns(),
        .default_deadline_s = 900.0,
        .needs = {Feature::cuda, Feature::nccl},
        .min_ranks = 4,
        .check_parameters = check_congestion_nccl,
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(congestion_nccl_spec);

}  // namespace shakedown::mpi
