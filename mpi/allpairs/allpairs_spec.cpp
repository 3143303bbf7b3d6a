#include "mpi/specs.hpp"

#include "comm/link_matrix_columns.hpp"
#include "core/errors.hpp"
#include "core/registry.hpp"
#include "mpi/allpairs/allpairs_names.hpp"

namespace shakedown::mpi {
namespace {

constexpr std::int64_t largest_message = std::int64_t{1} << 30;
constexpr std::int64_t most_allpairs_counts = 1'000'000;

void check_allpairs(const TestParams& params, int /*world_size*/) {
    if (params.integer("bandwidth_bytes") * params.integer("bandwidth_window") > (std::int64_t{4} << 30))
        throw InputError("bandwidth_bytes x bandwidth_window must stay within 4 GiB of receive buffers");
}

}  // namespace

const TestSpec& allpairs_spec() {
    static const TestSpec spec{
        .key = std::string(allpairs_names::key),
        .description = "latency and bandwidth of every ordered rank pair (or node leader pair: scope nodes) by "
                       "ring-shift rounds (link matrix), validated",
        .suites = {"full", "pairwise"},
        .parameters =
            {
                ParamSpec::integer("latency_bytes", 8, "latency message size").between(1, largest_message),
                ParamSpec::integer("latency_iterations", 50, "timed ping-pongs per pair").between(1, most_allpairs_counts),
                ParamSpec::integer("latency_warmup", 5, "warm-up ping-pongs per pair").between(0, most_allpairs_counts),
                ParamSpec::integer("bandwidth_bytes", std::int64_t{1} << 20, "bandwidth message size")
                    .between(1, largest_message),
                ParamSpec::integer("bandwidth_window", 16, "messages in flight per iteration").between(1, 1024),
                ParamSpec::integer("bandwidth_iterations", 5, "timed windows per pair").between(1, most_allpairs_counts),
                ParamSpec::integer("bandwidth_warmup", 1, "warm-up windows per pair").between(0, most_allpairs_counts),
                ParamSpec::integer("rounds", 1,
                                   "times the whole ring-shift schedule runs: each ordered pair is measured this often "
                                   "(one matrix row each), so every link has a median and a spread")
                    .between(1, 100),
                ParamSpec::choice("scope", "ranks", {"ranks", "nodes"},
                                  "ranks: every rank's links (P-1 rounds); nodes: only each node's leader (its lowest "
                                  "rank) in the rounds (N-1 rounds for N nodes), the node-level matrix that fits at "
                                  "thousands of nodes; the other ranks wait and record no figures"),
                ParamSpec::integer("pairs_per_node", automatic,
                                   "peers each taking part (node leader with scope nodes, "
                                   "else rank) measures per repetition, drawn from seed as shifts s and P-s: 2 x ceil(K/2) "
                                   "rounds of both directions instead of P-1 (at least P-1: all)")
                    .between(1, 1'000'000)
                    .allow_auto("every peer (P-1)"),
                ParamSpec::integer("seed", 1,
                                   "which peers pairs_per_node samples (the same on every rank; another seed "
                                   "in the next run covers other pairs)")
                    .between(0, std::int64_t{1} << 40),
            },
        .metrics =
            {
                {"allpairs.{intra_node,inter_node}_bandwidth_min_gbs", "GB/s", Better::higher, "this rank's slowest link"},
                {"allpairs.{intra_node,inter_node}_bandwidth_median_gbs", "GB/s", Better::higher, "the job's median link",
                 MetricScope::job},
                {std::string(allpairs_names::intra_node_bandwidth_max_gbs), "GB/s", Better::higher,
                 "this rank's fastest link: above the node's memory bandwidth it cannot be true", MetricScope::rank,
                 PhysicalBound::node_memory},
                {std::string(allpairs_names::inter_node_bandwidth_max_gbs), "GB/s", Better::higher,
                 "this rank's fastest link; nominal: the node's network capacity, above which it cannot be true",
                 MetricScope::rank, PhysicalBound::node_network},
                {"allpairs.{intra_node,inter_node}_{min_over_median,rank_median_over_median}", "ratio", Better::higher,
                 "this rank's slowest and median link over the job's median"},
                {"allpairs.{intra_node,inter_node}_latency_max_us", "us", Better::lower, "this rank's slowest link latency"},
                {"allpairs.{intra_node,inter_node}_latency_median_us", "us", Better::lower, "the job's median link latency",
                 MetricScope::job},
            },
        .samples = link_matrix_columns::columns(),  // rank 0 only: the whole matrix (scope nodes: the leaders' ranks)
        .default_deadline_s = 1800.0,
        .min_ranks = 2,
        .check_parameters = check_allpairs,
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(allpairs_spec);

}  // namespace shakedown::mpi
