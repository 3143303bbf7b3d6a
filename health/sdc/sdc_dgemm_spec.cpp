#include "health/specs.hpp"
#include "placement/placement_names.hpp"

#include "core/registry.hpp"

namespace shakedown::health {

const TestSpec& sdc_dgemm_spec() {
    static const TestSpec spec{
        .key = "sdc_dgemm",
        .description = "silent data corruption: the same DGEMM (fixed-seed inputs) twice on this rank's device, the "
                       "results compared bit for bit, and each device's checksum against the other devices of its node",
        .suites = {"full"},
        .parameters =
            {
                placement::names::device_parameter(),
                ParamSpec::integer("n", automatic, "matrix order")
                    .between(16, 65536)
                    .allow_auto("8192 on a GPU (1.1 TFLOP per product), 384 on the host"),
                ParamSpec::integer("seed", 7, "seed of the inputs (the same on every rank)").between(0, 1'000'000'000),
            },
        .metrics =
            {
                {"sdc_dgemm.mismatched_elements", "count", Better::lower, "elements that differ bit for bit between the two runs"},
                {"sdc_dgemm.node_disagreements", "count", Better::lower,
                 "devices of this node whose checksum differs from the node's majority (this rank's view)"},
                {"sdc_dgemm.seconds", "s", Better::lower, "time of one product"},
            },
        .samples = {{"run", "index"}, {"seconds", "s"}},
        .default_deadline_s = 600,
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(sdc_dgemm_spec);

}  // namespace shakedown::health
