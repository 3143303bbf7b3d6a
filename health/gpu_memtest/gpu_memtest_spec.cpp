#include "health/specs.hpp"

#include "core/registry.hpp"

namespace shakedown::health {

const TestSpec& gpu_memtest_spec() {
    static const TestSpec spec{
        .key = "gpu_memtest",
        .description = "GPU memory patterns (walking ones/zeros, address in address, seeded random, moving inversions) "
                       "over most of the free HBM; any mismatch FAILs naming address range, pattern and count",
        .suites = {"full"},
        .parameters =
            {
                ParamSpec::real("duration_s", 30.0, "keep passing over the patterns this long (at least one pass)")
                    .between(0, 86400),
                ParamSpec::real("free_fraction", 0.9, "share of the free memory at the start to test").between(0.01, 0.99),
                ParamSpec::integer("chunk_mib", 1024, "allocation size; the last chunk may be smaller").between(1, 1 << 20),
                ParamSpec::integer("seed", 1, "seed of the random and moving-inversion patterns").between(0, 1'000'000'000),
            },
        .metrics =
            {
                {"gpu_memtest.rate_gbs", "GB/s", Better::higher, "bytes written and read by the pattern kernels per second"},
                {"gpu_memtest.tested_gib", "GiB", Better::higher, "memory allocated and tested"},
                {"gpu_memtest.tested_fraction_of_free", "1", Better::higher, "tested / free at the start"},
                {"gpu_memtest.mismatched_words", "count", Better::lower, "words that did not read back as written"},
            },
        .samples = {{"pass", "index"}, {"pattern", "index"}, {"mismatched_words", "count"}},
        .needs = {Feature::cuda},
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(gpu_memtest_spec);

}  // namespace shakedown::health
