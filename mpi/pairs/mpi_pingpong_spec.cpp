#include "mpi/specs.hpp"

#include "mpi/pairs/mpi_pingpong_names.hpp"

#include "comm/iteration_plan.hpp"
#include "comm/sizes.hpp"
#include "core/registry.hpp"

namespace shakedown::mpi {
namespace {

std::vector<ParamSpec> mpi_pingpong_parameters() {
    // Modest counts (OSU uses 10000/100 and 1000/10): this test is in the quick suite, and 2000
    // samples still give a meaningful p99.
    auto specs = comm::iteration_parameters(comm::IterationCounts{{20, 2000}, {5, 200}});
    specs.push_back(
        ParamSpec::integers("sizes", {8, 1024, 65536}, "message sizes in bytes").between(0, comm::largest_message_bytes));
    specs.push_back(ParamSpec::integer("batch", 100, "timed iterations per sample row").between(1, comm::most_iterations));
    return specs;
}

}  // namespace

const TestSpec& mpi_pingpong_spec() {
    static const TestSpec spec{
        .key = std::string(mpi_pingpong_names::key),
        .description = "MPI ping-pong latency (half round trip) between the node-local pair and node leaders, validated",
        .suites = {"quick", "full"},
        .parameters = mpi_pingpong_parameters(),
        .metrics =
            {
                {"mpi_pingpong.{latency,leader_latency}_us", "us", Better::lower,
                 "median half round trip at the smallest size: node-local pair, node leaders"},
                {"mpi_pingpong.{latency,leader_latency}_p99_us", "us", Better::lower, "its 99th percentile"},
            },
        .samples = {{std::string(mpi_pingpong_names::size_column), "B"},
                    {"peer", "rank"},
                    {std::string(mpi_pingpong_names::intra_node_column), "flag"},
                    {"batch", "index"},
                    {"seconds", "s"},
                    {std::string(mpi_pingpong_names::latency_column), "us"}},
        .default_deadline_s = 120.0,
        .min_ranks = 2,
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(mpi_pingpong_spec);

}  // namespace shakedown::mpi
