#include "mpi/specs.hpp"

#include "comm/sizes.hpp"
#include "core/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace shakedown::mpi {
namespace {

constexpr std::int64_t mib = std::int64_t{1} << 20;

std::vector<std::string> names() { return {nccl_collective_names.begin(), nccl_collective_names.end()}; }

void check_nccl(const TestParams& params, int /*world_size*/) {
    (void)comm::size_sweep(params.integer("min_bytes"), params.integer("max_bytes"), params.integer("step_factor"));
}

std::string metric(const char* quantity) {
    return fmt::format("nccl.{{{}}}{{,_inplace}}_{}", fmt::join(nccl_collective_names, ","), quantity);
}

}  // namespace

const TestSpec& nccl_spec() {
    static const TestSpec spec{
        .key = std::string(nccl_names::key),
        .description = "NCCL collectives, one rank per GPU: algbw/busbw (nccl-tests factors) over 8 B..8 GiB, validated",
        .suites = {"quick", "full"},
        .parameters =
            {
                ParamSpec::names("collectives", names(), names(), "collectives to run, in this order"),
                ParamSpec::integer("min_bytes", 8, "smallest size (nccl-tests' size)").between(0, std::int64_t{1} << 36),
                ParamSpec::integer("max_bytes", 8192 * mib, "largest size")
                    .between(0, std::int64_t{1} << 36)
                    .in_suite("quick", 512 * mib),
                ParamSpec::integer("step_factor", 2, "size multiplier between steps").between(2, 1024),
                ParamSpec::integer("iterations", 20, "timed launches per size (nccl-tests -n)").between(1, 100'000'000),
                ParamSpec::integer("warmup", 5, "warm-up launches per size (nccl-tests -w)").between(0, 100'000'000),
                ParamSpec::flag("in_place", true, "also measure the in-place form where NCCL has one"),
            },
        .metrics =
            {
                {metric("{busbw_gbs,algbw_gbs}"), "GB/s", Better::higher, "bus and algorithm bandwidth at the largest size",
                 MetricScope::job},
                {metric("busbw_{8mib,512mib,8gib}_gbs"), "GB/s", Better::higher,
                 "bus bandwidth at nccl-tests' reference sizes", MetricScope::job},
                {metric("latency_us"), "us", Better::lower, "time of one launch at the smallest size", MetricScope::job},
            },
        .samples = {{std::string(nccl_names::collective_column), "index"},
                    {std::string(nccl_names::size_column), "B"},
                    {std::string(nccl_names::in_place_column), "flag"},
                    {"time_us", "us"},
                    {"algbw_gbs", "GB/s"},
                    {"busbw_gbs", "GB/s"},
                    {"job_time_us", "us"},
                    {"job_algbw_gbs", "GB/s"},
                    {std::string(nccl_names::job_busbw_column), "GB/s"},
                    {"wrong_elements", "count"}},
        // Priced as the job's figure (every rank records the job's), not charted per node.
        .headline = {{.metric = std::string(nccl_names::all_reduce_busbw_gbs),
                      .place = 5,
                      .charted = false,
                      .priced_as = "NCCL all_reduce bus GB/s",
                      .additive = false}},
        .default_deadline_s = 1800.0,
        .needs = {Feature::cuda, Feature::nccl},
        .check_parameters = check_nccl,
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(nccl_spec);

}  // namespace shakedown::mpi
