#include "ib/specs.hpp"

#include "comm/pairs.hpp"
#include "comm/sizes.hpp"
#include "core/input_limits.hpp"
#include "core/registry.hpp"

namespace shakedown::ib {
namespace {

// Defaults sized for the quick suite (a few seconds for a pair on a busy 2-core machine); the
// full suite's sweep to 8 MiB is a config away (docs/rdma.md).
std::vector<ParamSpec> ucx_perf_parameters() {
    constexpr std::int64_t largest_message = std::int64_t{1} << 30;
    return {
        ParamSpec::integer("min_bytes", 8, "smallest message size").between(1, largest_message),
        ParamSpec::integer("max_bytes", std::int64_t{1} << 20, "largest message size").between(1, largest_message),
        ParamSpec::integer("size_factor", 8, "step between sizes").between(2, 1024),
        ParamSpec::integer("latency_iterations", 200, "timed latency iterations per size").between(1, 100'000'000),
        ParamSpec::integer("latency_warmup", 20, "untimed latency iterations per size").between(0, 1'000'000),
        ParamSpec::integer("bw_iterations", 64, "messages in a bandwidth run").between(1, 100'000'000),
        ParamSpec::integer("window", 16, "requests in flight for bandwidth").between(1, 65536),
        comm::pairs_parameter("the node-local pair and node neighbours in a ring"),
        ParamSpec::real("timeout_s", 30.0, "longest wait for one operation before the peer is declared gone")
            .above(0)
            .at_most(input_limits::max_deadline_s),
    };
}

void check_ucx_perf(const TestParams& params, int world_size) {
    (void)comm::size_sweep(params.integer("min_bytes"), params.integer("max_bytes"), params.integer("size_factor"));
    check_named_pairs(params, world_size);
}

}  // namespace

const TestSpec& ucx_perf_spec() {
    static const TestSpec spec{
        .key = "ucx_perf",
        .description = "UCX tag/put/get latency and bandwidth between rank pairs, validated, with the transports UCX chose",
        .suites = {"quick", "full", "pairwise"},
        .parameters = ucx_perf_parameters(),
        .metrics =
            {
                {"ucx_perf.{tag,put,get}_{latency_us,latency_p99_us}", "us", Better::lower,
                 "worst pair's median and p99 latency at the smallest size"},
                {"ucx_perf.{tag,put,get}_bandwidth_gbs", "GB/s", Better::higher, "worst pair's bandwidth at the largest size"},
                {"ucx_perf.{tag,put,get}_message_rate_mps", "Mmsg/s", Better::higher, "worst pair's message rate"},
            },
        .samples = {{"size", "B"}, {"peer", "rank"}, {"operation", "0=tag,1=put,2=get"}, {"latency_min_us", "us"}, {"latency_median_us", "us"}, {"latency_average_us", "us"}, {"latency_p99_us", "us"}, {"latency_p99_9_us", "us"}, {"bandwidth_gbs", "GB/s"}, {"message_rate_mps", "Mmsg/s"}},
        .default_deadline_s = 600.0,
        .needs = {Feature::ucx},
        .min_ranks = 2,
        .check_parameters = check_ucx_perf,
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(ucx_perf_spec);

}  // namespace shakedown::ib
