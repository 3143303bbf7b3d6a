#include "mpi/specs.hpp"

#include "mpi/pairs/p2p_names.hpp"

#include "comm/iteration_plan.hpp"
#include "comm/pairs.hpp"
#include "comm/sizes.hpp"
#include "core/registry.hpp"

namespace shakedown::mpi {
namespace {

std::vector<ParamSpec> p2p_parameters() {
    auto specs = comm::iteration_parameters(comm::IterationCounts{});
    const auto counts = [](const char* name, int value, const char* description, int least) {
        return ParamSpec::integer(name, value, description).between(least, comm::most_iterations);
    };
    for (ParamSpec spec : {
             ParamSpec::integer("min_bytes", 1, "smallest message size").between(0, comm::largest_message_bytes),
             ParamSpec::integer("max_bytes", std::int64_t{4} << 20, "largest message size")
                 .between(0, comm::largest_message_bytes),
             comm::pairs_parameter("the node-local pair and node leaders in a ring"),
             counts("window", 64, "non-blocking sends in flight for bandwidth", 1),
             counts("bw_iterations_small", 100, "timed windows for messages up to 8 KiB", 1),
             counts("bw_warmup_small", 10, "warm-up windows for messages up to 8 KiB", 0),
             counts("bw_iterations_large", 20, "timed windows for messages above 8 KiB", 1),
             counts("bw_warmup_large", 2, "warm-up windows for messages above 8 KiB", 0),
         })
        specs.push_back(std::move(spec));
    return specs;
}

// A size range that is upside down, or named pairs that cannot be measured, before any rank
// starts; run() checks the pairs again against the ranks that did not waive the test.
void check_p2p(const TestParams& params, int world_size) {
    (void)comm::size_sweep(params.integer("min_bytes"), params.integer("max_bytes"), 2);
    if (!params.is_auto("pairs"))
        (void)comm::parse_pair_list(params.names("pairs"), comm::every_rank_apart(world_size), world_size);
}

}  // namespace

const TestSpec& p2p_spec() {
    static const TestSpec spec{
        .key = std::string(p2p_names::key),
        .description = "MPI point-to-point latency, bandwidth, bi-bandwidth and message rate over a size sweep, validated",
        .suites = {"full", "pairwise"},
        .parameters = p2p_parameters(),
        .metrics =
            {
                {"p2p.{intra_node,inter_node}_{latency_us,latency_p99_us}", "us", Better::lower,
                 "worst pair's median and p99 half round trip at the smallest size"},
                {std::string(p2p_names::intra_node_bandwidth_max_gbs), "GB/s", Better::higher,
                 "this rank's fastest pair at the largest size: above the node's memory bandwidth it cannot be true",
                 MetricScope::rank, PhysicalBound::node_memory},
                {std::string(p2p_names::inter_node_bandwidth_max_gbs), "GB/s", Better::higher,
                 "this rank's fastest pair at the largest size; nominal: the node's network capacity, above which it "
                 "cannot be true",
                 MetricScope::rank, PhysicalBound::node_network},
                {"p2p.{intra_node,inter_node}_{bandwidth_gbs,bibandwidth_gbs}", "GB/s", Better::higher,
                 "worst pair's streaming and bi-directional bandwidth at the largest size"},
                {"p2p.{intra_node,inter_node}_message_rate_mps", "Mmsg/s", Better::higher,
                 "worst pair's message rate at the smallest size"},
            },
        .samples = {{std::string(p2p_names::size_column), "B"},
                    {"peer", "rank"},
                    {std::string(p2p_names::intra_node_column), "flag"},
                    {"latency_min_us", "us"},
                    {std::string(p2p_names::latency_median_column), "us"},
                    {"latency_p99_us", "us"},
                    {std::string(p2p_names::bandwidth_column), "GB/s"},
                    {"bibandwidth_gbs", "GB/s"},
                    {"message_rate_mps", "Mmsg/s"}},
        .default_deadline_s = 900.0,
        .min_ranks = 2,
        .check_parameters = check_p2p,
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(p2p_spec);

}  // namespace shakedown::mpi
