#include "mpi/specs.hpp"

#include "comm/iteration_plan.hpp"
#include "comm/sizes.hpp"
#include "core/registry.hpp"

namespace shakedown::mpi {
namespace {

std::vector<ParamSpec> gpu_aware_mpi_parameters() {
    auto specs = comm::iteration_parameters(comm::IterationCounts{{10, 1000}, {5, 100}});
    specs.push_back(ParamSpec::integers("sizes", {8, 65536, 4194304, 67108864}, "message sizes in bytes")
                        .between(0, comm::largest_message_bytes));
    return specs;
}

}  // namespace

const TestSpec& gpu_aware_mpi_spec() {
    static const TestSpec spec{
        .key = "gpu_aware_mpi",
        .description = "MPI ping-pong from GPU memory (CUDA-aware MPI): latency and bandwidth, validated",
        .suites = {"full"},
        .parameters = gpu_aware_mpi_parameters(),
        .metrics =
            {
                {"gpu_aware_mpi.latency_us", "us", Better::lower,
                 "worst pair's median half round trip at the smallest size"},
                {"gpu_aware_mpi.bandwidth_gbs", "GB/s", Better::higher, "worst pair's bandwidth at the largest size"},
            },
        .samples = {{"size", "B"},
                    {"peer", "rank"},
                    {"intra_node", "flag"},
                    {"latency_min_us", "us"},
                    {"latency_median_us", "us"},
                    {"latency_p99_us", "us"},
                    {"bandwidth_gbs", "GB/s"}},
        .needs = {Feature::cuda},
        .min_ranks = 2,
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(gpu_aware_mpi_spec);

}  // namespace shakedown::mpi
