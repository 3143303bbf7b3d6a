// gpu_aware_mpi: ping-pong between GPU buffers through a CUDA-aware MPI library, between the
// node-local pair and node leaders, every payload validated. Waived with the library's own
// answer when it is not CUDA-aware.
#include "comm/pair_sweep.hpp"
#include "comm/sizes.hpp"
#include "core/problem_list.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "mpi/cuda/device_message_buffer.hpp"
#include "mpi/cuda/gpu_aware_mpi_waiver.hpp"
#include "mpi/pairs/pingpong.hpp"
#include "mpi/specs.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>

namespace shakedown::mpi {
namespace {

class GpuAwareMpi final : public Test {
public:
    GpuAwareMpi() : Test(gpu_aware_mpi_spec()) {}

    std::optional<std::string> waiver(const RunContext& ctx) const override { return gpu_aware_mpi_waiver(ctx); }

    TestResult run(const RunContext& ctx) const override {
        const auto sizes = comm::byte_sizes(ctx.params().integers("sizes"));
        const auto counts = comm::iteration_counts(ctx.params());
        SHAKEDOWN_CUDA(cudaSetDevice(*ctx.session().gpu()));
        const comm::PairSweep pairs(ctx.comm(), ctx.session(), comm::local_then_ring_rounds);

        TestResult result;
        result.parameters["pairs_run"] = pairs.description();
        result.samples = SampleTable(gpu_aware_mpi_spec().samples);
        std::optional<double> smallest_latency_us, largest_bandwidth_gbs;
        ProblemList mismatches("payload mismatches");
        pairs.for_each_turn([&](const comm::PairTurn& turn) {
            for (const auto bytes : sizes) {
                DeviceMessageBuffer send(bytes), receive(bytes);
                const PingPongSpec spec{bytes, counts.for_size(bytes), ctx.faults().delay_s(), ctx.faults().corrupt()};
                const auto outcome = ping_pong(ctx.comm(), turn.peer, turn.initiator, spec, send, receive);
                if (outcome.mismatch) mismatches.add(outcome.mismatch->describe(turn));
                const auto latency = stats::summarize(outcome.half_round_trip_us());
                const double bandwidth = latency.median > 0 ? static_cast<double>(bytes) / latency.median / 1e3 : 0.0;
                result.samples.add_row({static_cast<double>(bytes), static_cast<double>(turn.peer_world),
                                        turn.intra_node() ? 1.0 : 0.0, latency.min, latency.median, latency.p99, bandwidth});
                if (bytes == sizes.front()) smallest_latency_us = std::max(smallest_latency_us.value_or(0.0), latency.median);
                if (bytes == sizes.back()) largest_bandwidth_gbs = std::min(largest_bandwidth_gbs.value_or(bandwidth), bandwidth);
            }
        });
        mismatches.fail(result);
        if (smallest_latency_us)
            result.add_metric("gpu_aware_mpi.latency_us", *smallest_latency_us);
        if (largest_bandwidth_gbs)
            result.add_metric("gpu_aware_mpi.bandwidth_gbs", *largest_bandwidth_gbs);
        return result;
    }
};

}  // namespace

SHAKEDOWN_REGISTER_TEST(GpuAwareMpi);

}  // namespace shakedown::mpi
