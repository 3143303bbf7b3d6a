#include "health/specs.hpp"

#include "core/registry.hpp"

namespace shakedown::health {

const TestSpec& h2d_bandwidth_spec() {
    static const TestSpec spec{
        .key = "h2d_bandwidth",
        .description = "Pinned host<->device GB/s per GPU, host memory on the GPU's NUMA node and across, validated, vs PCIe nominal and peers",
        .suites = {"quick", "full"},
        .parameters =
            {
                ParamSpec::integer("size_mib", 4096, "bytes per copy in MiB").between(1, 1 << 20).in_suite("quick", 1024),
                ParamSpec::integer("repetitions", 10, "timed copies each way").between(1, 1'000'000).in_suite("quick", 5),
                ParamSpec::flag("cross_numa", true, "also measure with host memory on another NUMA node"),
                ParamSpec::real("min_fraction_of_nominal", 0.75, "below this share of the PCIe raw rate is a FAIL (healthy Gen5 x16: 0.86)")
                    .between(0, 1),
                ParamSpec::real("peer_fraction", 0.9, "below this share of the job's median GPU is a FAIL").between(0, 1),
            },
        .metrics =
            {
                {"h2d_bandwidth.{h2d_gbs,d2h_gbs}", "GB/s", Better::higher,
                 "host memory on the GPU's NUMA node, nominal: the PCIe link's raw rate"},
                {"h2d_bandwidth.{h2d_remote_numa_gbs,d2h_remote_numa_gbs}", "GB/s", Better::higher,
                 "host memory on another NUMA node"},
            },
        .samples = {{"placement", "0=local,1=remote"}, {"repetition", "index"}, {"h2d_gbs", "GB/s"}, {"d2h_gbs", "GB/s"}},
        .needs = {Feature::cuda},
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(h2d_bandwidth_spec);

}  // namespace shakedown::health
