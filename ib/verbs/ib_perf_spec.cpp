#include "ib/specs.hpp"

#include "comm/pairs.hpp"
#include "comm/sizes.hpp"
#include "core/input_limits.hpp"
#include "core/registry.hpp"

namespace shakedown::ib {
namespace {

constexpr std::int64_t largest_message = std::int64_t{1} << 30;

std::vector<ParamSpec> ib_perf_parameters() {
    auto specs = endpoint_parameters();
    for (ParamSpec spec : {
             ParamSpec::integer("min_bytes", 2, "smallest message size (arrival is seen on the last byte)")
                 .between(2, largest_message),
             ParamSpec::integer("max_bytes", std::int64_t{8} << 20, "largest message size").between(2, largest_message),
             ParamSpec::names("operations", {"write", "read", "send"}, {"write", "read", "send"}, "operations to measure"),
             ParamSpec::integer("latency_iterations", 1000, "timed latency iterations per size").between(0, 100'000'000),
             ParamSpec::integer("latency_warmup", 100, "untimed latency iterations per size").between(0, 1'000'000),
             ParamSpec::integer("bw_iterations", 1000, "messages in a timed bandwidth run").between(1, 100'000'000),
             ParamSpec::integer("bw_warmup", 128, "messages streamed before the timed run").between(0, 1'000'000),
             ParamSpec::integer("queue_depth", 128, "send requests in flight for bandwidth").between(1, 16384),
             ParamSpec::flag("bidirectional", true, "also stream both ways at once"),
             comm::pairs_parameter("node neighbours in a ring"),
             ParamSpec::flag("allow_intra_node", false, "pair ranks of the same node (one-node runs, loopback checks)"),
             ParamSpec::real("timeout_s", 30.0, "longest wait for one completion before the link is declared dead")
                 .above(0)
                 .at_most(input_limits::max_deadline_s),
         })
        specs.push_back(std::move(spec));
    return specs;
}

void check_ib_perf(const TestParams& params, int world_size) {
    (void)comm::size_sweep(params.integer("min_bytes"), params.integer("max_bytes"), 2);
    check_named_pairs(params, world_size);
}

}  // namespace

const TestSpec& ib_perf_spec() {
    static const TestSpec spec{
        .key = "ib_perf",
        .description =
            "RC verbs write/read/send latency (p99.9) and bandwidth (queue depth 128) between rank pairs, validated",
        .suites = {"full", "pairwise"},
        .parameters = ib_perf_parameters(),
        .metrics =
            {
                {"ib_perf.{write,read,send}_{latency_us,latency_p99_us,latency_p99_9_us}", "us", Better::lower,
                 "worst pair's median, p99 and p99.9 latency at the smallest size"},
                {"ib_perf.{write,read,send}_{bandwidth_gbps,bibandwidth_gbps}", "Gb/s", Better::higher,
                 "worst pair's one-way and both-ways bandwidth at the largest size, nominal: the port rate"},
                {"ib_perf.{write,read,send}_message_rate_mps", "Mmsg/s", Better::higher, "worst pair's message rate"},
            },
        .samples = {{"size", "B"},
                    {"peer", "rank"},
                    {"operation", "0=write,1=read,2=send"},
                    {"latency_min_us", "us"},
                    {"latency_median_us", "us"},
                    {"latency_average_us", "us"},
                    {"latency_p99_us", "us"},
                    {"latency_p99_9_us", "us"},
                    {"bandwidth_gbps", "Gb/s"},
                    {"bibandwidth_gbps", "Gb/s"},
                    {"message_rate_mps", "Mmsg/s"}},
        .default_deadline_s = 1800.0,
        .min_ranks = 2,
        .check_parameters = check_ib_perf,
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(ib_perf_spec);

}  // namespace shakedown::ib
