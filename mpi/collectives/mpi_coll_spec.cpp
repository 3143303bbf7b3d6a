#include "mpi/specs.hpp"

#include "comm/sizes.hpp"
#include "core/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace shakedown::mpi {
namespace {

std::vector<std::string> names() { return {mpi_collective_names.begin(), mpi_collective_names.end()}; }

void check_mpi_coll(const TestParams& params, int /*world_size*/) {
    (void)comm::size_sweep(params.integer("min_bytes"), params.integer("max_bytes"), params.integer("step_factor"));
}

}  // namespace

const TestSpec& mpi_coll_spec() {
    static const TestSpec spec{
        .key = std::string(mpi_coll_names::key),
        .description =
            "MPI allreduce/allgather/reduce_scatter/alltoall/bcast/barrier: algbw, busbw, validated, per-rank times",
        .suites = {"full"},
        .parameters =
            {
                ParamSpec::names("collectives", names(), names(), "collectives to run, in this order"),
                ParamSpec::integer("min_bytes", 8, "smallest message size (nccl-tests' size)")
                    .between(0, std::int64_t{1} << 34),
                ParamSpec::integer("max_bytes", std::int64_t{16} << 20, "largest message size")
                    .between(0, std::int64_t{1} << 34),
                ParamSpec::integer("step_factor", 4, "size multiplier between steps").between(2, 1024),
                ParamSpec::integer("iterations", 20, "timed iterations per size").between(1, 100'000'000),
                ParamSpec::integer("warmup", 5, "warm-up iterations per size").between(0, 100'000'000),
            },
        .metrics =
            {
                {"mpi_coll.{allreduce,allgather,reduce_scatter,alltoall,bcast}_{algbw_gbs,busbw_gbs}", "GB/s",
                 Better::higher,
                 "algorithm and bus bandwidth at the largest size (nccl-tests' factors; job time: the slowest rank's)",
                 MetricScope::job},
                {"mpi_coll.barrier_us", "us", Better::lower, "barrier time", MetricScope::job},
                {std::string(mpi_coll_names::rank_time_ratio), "ratio", Better::lower,
                 "this rank's own time over the other ranks' median"},
                {std::string(mpi_coll_names::slowest_rank_ratio), "ratio", Better::lower,
                 "rank 0: the slowest rank's own time over the other ranks' median", MetricScope::job},
                {std::string(mpi_coll_names::slowest_rank), "rank", Better::lower,
                 "rank 0: the world rank with the most own time", MetricScope::job},
            },
        .samples = {{std::string(mpi_coll_names::collective_column), "index"},
                    {std::string(mpi_coll_names::size_column), "B"},
                    {"iterations", "count"},
                    {"time_us", "us"},
                    {"own_time_us", "us"},
                    {"arrival_us", "us"},
                    {"algbw_gbs", "GB/s"},
                    {"busbw_gbs", "GB/s"},
                    {std::string(mpi_coll_names::job_busbw_column), "GB/s"},
                    {"wrong_elements", "count"}},
        .default_deadline_s = 900.0,
        .check_parameters = check_mpi_coll,
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(mpi_coll_spec);

}  // namespace shakedown::mpi
