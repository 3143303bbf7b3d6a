// `gpu_memtest`: the bound GPU's memory under pattern tests (health/gpu_memtest/memtest_cuda.cu)
// over `free_fraction` of its free memory for `duration_s`. Any mismatch FAILs the test naming
// the pattern, the pass, the count and the address range; the rate is what the pattern kernels
// wrote and read per second. The fault `corrupt` flips one bit of one word between a write and
// its verify, so the test must FAIL naming it. Without CUDA the declaration waives it (needs cuda).
#include "health/gpu_memtest/memtest_backend.hpp"
#include "health/specs.hpp"

#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "placement/placement.hpp"

#include <fmt/format.h>

namespace shakedown::health {
namespace {

constexpr double gib = 1024.0 * 1024.0 * 1024.0;

class GpuMemtest final : public Test {
public:
    GpuMemtest() : Test(gpu_memtest_spec()) {}

    std::optional<std::string> waiver(const RunContext& ctx) const override { return placement::gpu_only_waiver(ctx); }

    TestResult run(const RunContext& ctx) const override {
        TestResult result;
        MemtestRequest request;
        request.device = *placement::usable_gpu(ctx);
        request.duration_s = ctx.params().real("duration_s");
        request.free_fraction = ctx.params().real("free_fraction");
        request.chunk_bytes = static_cast<std::uint64_t>(ctx.params().integer("chunk_mib")) << 20;
        request.seed = static_cast<std::uint64_t>(ctx.params().integer("seed"));
        request.plant_corruption = ctx.faults().corrupt();
        const MemtestOutcome outcome = run_gpu_memtest(request);

        result.parameters["free_bytes"] = std::to_string(outcome.free_bytes);
        result.parameters["total_bytes"] = std::to_string(outcome.total_bytes);
        result.parameters["tested_bytes"] = std::to_string(outcome.tested_bytes);
        result.parameters["passes"] = std::to_string(outcome.passes);
        result.parameters["seconds"] = fmt::format("{:.2f}", outcome.seconds);
        std::string patterns;
        for (const auto& name : outcome.patterns) patterns += (patterns.empty() ? "" : ",") + name;
        result.parameters["patterns"] = patterns;
        if (outcome.tested_bytes == 0) {
            result.fail(fmt::format("gpu_memtest: could not allocate any of the {:.1f} GiB free on GPU{}",
                                    outcome.free_bytes / gib, request.device));
            return result;
        }
        const double fraction = outcome.free_bytes > 0 ? static_cast<double>(outcome.tested_bytes) / outcome.free_bytes : 0.0;
        std::uint64_t mismatched = 0;
        result.samples = SampleTable(gpu_memtest_spec().samples);
        for (const MemtestMismatch& bad : outcome.mismatches) {
            mismatched += bad.count;
            result.fail(fmt::format("gpu_memtest: GPU{} {} mismatched word(s) in 0x{:x}-0x{:x}, pattern {} (pass {}): first "
                                    "expected 0x{:016x}, read 0x{:016x}",
                                    request.device, bad.count, bad.first_address, bad.last_address + 7, bad.pattern, bad.pass,
                                    bad.expected, bad.found));
        }
        result.add_metric("gpu_memtest.rate_gbs", outcome.seconds > 0 ? outcome.bytes_moved / outcome.seconds / 1e9 : 0.0);
        result.add_metric("gpu_memtest.tested_gib", outcome.tested_bytes / gib);
        result.add_metric("gpu_memtest.tested_fraction_of_free", fraction);
        result.add_metric("gpu_memtest.mismatched_words", static_cast<double>(mismatched));
        if (fraction < 0.9 * request.free_fraction)
            result.fail(fmt::format("gpu_memtest: tested only {:.1f} of {:.1f} GiB free ({:.2f}, asked {:.2f})",
                                    outcome.tested_bytes / gib, outcome.free_bytes / gib, fraction, request.free_fraction));
        return result;
    }
};

SHAKEDOWN_REGISTER_TEST(GpuMemtest);

}  // namespace
}  // namespace shakedown::health
