#include "ib/specs.hpp"

#include "comm/pairs.hpp"
#include "core/input_limits.hpp"
#include "core/registry.hpp"

namespace shakedown::ib {
namespace {

std::vector<ParamSpec> gpudirect_rdma_parameters() {
    auto specs = endpoint_parameters();
    for (ParamSpec spec : {
             ParamSpec::integer("bytes", std::int64_t{8} << 20, "message size").between(8, std::int64_t{1} << 30),
             ParamSpec::integer("messages", 200, "messages per stream").between(1, 100'000'000),
             ParamSpec::integer("queue_depth", 128, "requests in flight").between(1, 16384),
             comm::pairs_parameter("node neighbours in a ring"),
             ParamSpec::flag("allow_intra_node", false, "pair ranks of the same node"),
             ParamSpec::real("timeout_s", 30.0, "longest wait for one completion").above(0).at_most(input_limits::max_deadline_s),
         })
        specs.push_back(std::move(spec));
    return specs;
}

}  // namespace

const TestSpec& gpudirect_rdma_spec() {
    static const TestSpec spec{
        .key = "gpudirect_rdma",
        .description = "GPUDirect RDMA: GPU memory registered (dma-buf or nvidia-peermem), RDMA write/read GPU to GPU, validated",
        .suites = {"full"},
        .parameters = gpudirect_rdma_parameters(),
        .metrics =
            {
                {"gpudirect_rdma.{write_bandwidth_gbps,read_bandwidth_gbps,host_write_bandwidth_gbps}", "Gb/s", Better::higher,
                 "worst pair's GPU-to-GPU write and read, and host-memory write, nominal: the port rate"},
                {"gpudirect_rdma.write_vs_host_ratio", "ratio", Better::higher, "GPU write over host write"},
            },
        .default_deadline_s = 600.0,
        .needs = {Feature::cuda, Feature::verbs},
        .min_ranks = 2,
        .check_parameters = check_named_pairs,
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(gpudirect_rdma_spec);

}  // namespace shakedown::ib
