// congestion_nccl: the congestion test over NCCL, one rank per GPU (built only with NCCL;
// compile-checked on the development VM, which has no GPU). The measuring GPUs' NCCL
// communicator is ordered along the random ring, so ncclSend to the next NCCL rank and ncclRecv
// from the previous one is a ring exchange whose neighbours sit on other nodes as often as the
// layout allows; each iteration starts from an MPI barrier and is timed between CUDA events on
// its stream. The congesting GPUs run ncclAllToAll on their own communicator until the measuring
// ranks' leader says it has finished (StopSignal). One ring: its NCCL communicator is ordered
// along it, and another ring would be another communicator. Validation: after each phase and size, one
// fresh transfer checked element by element on the GPU (nccl_data), not every timed one.
#include "comm/communicator_names.hpp"
#include "comm/congestion_ring_columns.hpp"
#include "core/communicator.hpp"
#include "core/planted_delay.hpp"
#include "core/problem_list.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "core/waiver_reasons.hpp"
#include "gpu/cuda_owners.hpp"
#include "gpu/nccl_communicator.hpp"
#include "mpi/congestion/congestion_figures.hpp"
#include "mpi/congestion/congestion_ring.hpp"
#include "mpi/congestion/congestion_roles.hpp"
#include "mpi/congestion/congestors.hpp"
#include "mpi/nccl/nccl_data.hpp"
#include "mpi/nccl/nccl_ops.hpp"
#include "mpi/specs.hpp"
#include "placement/placement.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace shakedown::mpi {
namespace {

struct Transfer {
    std::size_t bytes = 0;
    int warmup = 0;
    int iterations = 0;
};

// One size of the ring, timed per iteration; `seconds` in rank order of the iterations.
std::vector<double> time_ring(const gpu::NcclCommunicator& nccl, MPI_Comm measuring, const gpu::CudaStream& stream,
                              const NcclLayout& layout, const NcclPlacement& where, const Transfer& transfer,
                              double delay_s) {
    std::vector<double> seconds;
    gpu::CudaEvent start, stop;
    for (int step = 0; step < transfer.warmup + transfer.iterations; ++step) {
        MPI_Barrier(measuring);
        planted_delay(delay_s);
        start.record(stream.get());
        launch_nccl_op(NcclOpKind::sendrecv, where, layout, nccl.rank(), nccl.ranks(), nccl.get(), stream.get());
        stop.record(stream.get());
        const double elapsed = stop.seconds_since(start);
        if (step >= transfer.warmup) seconds.push_back(elapsed);
    }
    return seconds;
}

class CongestionNccl final : public Test {
public:
    CongestionNccl() : Test(congestion_nccl_spec()) {}

    std::optional<std::string> waiver(const RunContext& ctx) const override {
        if (auto waiver = placement::gpu_only_waiver(ctx)) return waiver;  // one rank per GPU, as NCCL needs
        if (const int gpus = ctx.session().gpus_measured(); gpus < 4)
            return job_too_small_waiver("4 GPUs in the job", fmt::format("this run measures {}", gpus));
        return std::nullopt;
    }

    TestResult run(const RunContext& ctx) const override {
        const auto& p = ctx.params();
        const auto placement = comm::gather_placement(ctx.comm(), ctx.session());
        const CongestionRoles roles = congestion_roles(placement, p.real("congestor_fraction"));
        const bool congests = roles.congests[static_cast<std::size_t>(ctx.rank())];
        // The measuring ranks' NCCL ranks follow the random ring; the congesting ones keep their order.
        std::vector<int> measuring_ranks, world_of_measuring;
        for (std::size_t r = 0; r < placement.size(); ++r)
            if (!roles.congests[r]) {
                measuring_ranks.push_back(static_cast<int>(r));
                world_of_measuring.push_back(placement[r].world_rank);
            }
        const auto ring =
            random_ring(static_cast<int>(measuring_ranks.size()), static_cast<std::uint64_t>(p.integer("seed")));
        int key = ctx.rank();
        if (!congests) {
            const auto mine = std::find(measuring_ranks.begin(), measuring_ranks.end(), ctx.rank()) -
                              measuring_ranks.begin();
            key = static_cast<int>(std::find(ring.begin(), ring.end(), static_cast<int>(mine)) - ring.begin());
        }
        const Communicator group = Communicator::split(ctx.comm(), congests ? 1 : 0, key);
        const gpu::NcclCommunicator nccl(group.get(), *ctx.session().gpu());
        const gpu::CudaStream stream;
        const int measuring_leader = measuring_ranks.front();
        const int congestor_root =
            static_cast<int>(std::find(roles.congests.begin(), roles.congests.end(), true) - roles.congests.begin());

        RankFigures mine;
        ProblemList wrong("results with wrong elements");
        MPI_Barrier(ctx.comm());
        if (!congests) {
            const int previous_world = world_of_measuring[static_cast<std::size_t>(
                ring[static_cast<std::size_t>((nccl.rank() - 1 + nccl.ranks()) % nccl.ranks())])];
            const int next_world = world_of_measuring[static_cast<std::size_t>(
                ring[static_cast<std::size_t>((nccl.rank() + 1) % nccl.ranks())])];
            const auto phase = [&](int which, double delay_s, bool corrupt) {
                PhaseSummary summary;
                for (const bool latency : {true, false}) {
                    const Transfer transfer = latency ? Transfer{static_cast<std::size_t>(p.integer("latency_bytes")),
                                                                 static_cast<int>(p.integer("latency_warmup")),
                                                                 static_cast<int>(p.integer("latency_iterations"))}
                                                      : Transfer{static_cast<std::size_t>(p.integer("bandwidth_bytes")),
                                                                 static_cast<int>(p.integer("bandwidth_warmup")),
                                                                 static_cast<int>(p.integer("bandwidth_iterations"))};
                    const auto layout = nccl_layout(NcclOpKind::sendrecv, transfer.bytes, nccl.ranks());
                    const gpu::DeviceBuffer<std::byte> input(layout.input_count * sizeof(float));
                    const gpu::DeviceBuffer<std::byte> output(layout.output_count * sizeof(float));
                    const auto where = nccl_placement(NcclOpKind::sendrecv, layout, input.as<float>(), output.as<float>(),
                                                      false, nccl.rank());
                    const NcclDataSpec data{NcclOpKind::sendrecv, nccl.rank(), nccl.ranks(), layout.chunk};
                    fill_nccl_input(data, where.input, where.input_count, stream.get());
                    const auto seconds = time_ring(nccl, group.get(), stream, layout, where, transfer, delay_s);
                    if (latency) {
                        summary.latency_p50_us = stats::median(seconds) * 1e6;
                        summary.latency_p99_us = stats::percentile(seconds, 0.99) * 1e6;
                    } else {
                        summary.bandwidth_gbs = static_cast<double>(layout.bytes) / stats::median(seconds) / 1e9;
                    }
                    // One fresh transfer, checked on the GPU.
                    fill_nccl_input(data, where.input, where.input_count, stream.get());
                    launch_nccl_op(NcclOpKind::sendrecv, where, layout, nccl.rank(), nccl.ranks(), nccl.get(), stream.get());
                    const auto bad =
                        count_nccl_wrong(data, where.output, layout.output_count, corrupt && !latency, stream.get());
                    if (bad.count > 0)
                        wrong.add(
                            fmt::format("{} wrong element{} of {} on the link {} -> {} ({} phase, {} B, first at index {})",
                                        bad.count, bad.count == 1 ? "" : "s", bad.checked, previous_world,
                                        placement[static_cast<std::size_t>(ctx.rank())].world_rank,
                                        which == 0 ? "baseline" : "congested", layout.bytes, *bad.first_index),
                            bad.count);
                }
                return summary;
            };
            mine.measures = true;
            RingFigures figures{previous_world, next_world, phase(0, 0.0, false), {}};
            MPI_Barrier(ctx.comm());
            figures.congested = phase(1, ctx.faults().delay_s(), ctx.faults().corrupt());
            mine.rings.push_back(figures);
            if (ctx.rank() == measuring_leader) stop_congestors(ctx.comm(), congestor_root);
        } else {
            MPI_Barrier(ctx.comm());
            const auto layout =
                nccl_layout(NcclOpKind::alltoall,
                            static_cast<std::size_t>(p.integer("alltoall_bytes")) * static_cast<std::size_t>(nccl.ranks()),
                            nccl.ranks());
            const gpu::DeviceBuffer<std::byte> input(layout.input_count * sizeof(float));
            const gpu::DeviceBuffer<std::byte> output(layout.output_count * sizeof(float));
            const auto where =
                nccl_placement(NcclOpKind::alltoall, layout, input.as<float>(), output.as<float>(), false, nccl.rank());
            StopSignal stop(group.get(), ctx.comm(), measuring_leader);
            for (bool stopped = false; !stopped;) {
                if (nccl.ranks() >= 2)
                    launch_nccl_op(NcclOpKind::alltoall, where, layout, nccl.rank(), nccl.ranks(), nccl.get(), stream.get());
                stream.synchronize();
                ++mine.congestor_rounds;
                stopped = stop.arrived();
            }
        }

        TestResult result;
        result.parameters[std::string(communicator_names::communicator_ranks)] = std::to_string(ctx.size());
        result.parameters[std::string(congestion_ring_columns::measuring_ranks)] = std::to_string(roles.measuring);
        result.parameters["roles"] = roles.describe();
        result.parameters["gpu"] = std::to_string(*ctx.session().gpu());
        add_congestion_figures(result, congestion_nccl_spec(), ctx.comm(), placement, mine, 1);
        wrong.fail(result);
        return result;
    }
};

}  // namespace

SHAKEDOWN_REGISTER_TEST(CongestionNccl);

}  // namespace shakedown::mpi
