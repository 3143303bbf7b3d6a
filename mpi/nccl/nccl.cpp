// nccl: NCCL collectives (all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce,
// sendrecv) over a size sweep, one rank per GPU, out-of-place and in-place, with nccl-tests'
// algbw/busbw, every result checked element by element on the GPU.
//
// Timing as nccl-tests does it: warm-up, a barrier, then `iterations` launches back to back on
// one stream between two CUDA events (no per-iteration sync); the job's time is the slowest
// rank's. The NCCL environment is the user's: nothing here sets NCCL_* variables (on hosts
// where NVLink SHARP must stay off, export NCCL_NVLS_ENABLE=0 yourself).
#include "comm/communicator_names.hpp"
#include "comm/sizes.hpp"
#include "core/problem_list.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "core/waiver_reasons.hpp"
#include "gpu/cuda_owners.hpp"
#include "gpu/nccl_communicator.hpp"
#include "mpi/nccl/nccl_data.hpp"
#include "mpi/nccl/nccl_ops.hpp"
#include "mpi/specs.hpp"
#include "placement/placement.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>

extern char** environ;

namespace shakedown::mpi {
namespace {

constexpr std::size_t mib = std::size_t{1} << 20;

// Sizes that also get a metric of their own: the nccl-tests reference points.
const std::map<std::size_t, std::string_view> reference_sizes = {
    {8 * mib, "8mib"}, {512 * mib, "512mib"}, {std::size_t{8} << 30, "8gib"}};

// The NCCL_* variables the user set, for the record: results depend on them.
std::string nccl_environment() {
    std::vector<std::string> set;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry)
        if (std::strncmp(*entry, "NCCL_", 5) == 0) set.emplace_back(*entry);
    std::sort(set.begin(), set.end());
    return set.empty() ? "none" : fmt::format("{}", fmt::join(set, " "));
}

struct Measurement {
    double seconds = 0.0;      // this rank, per iteration
    double job_seconds = 0.0;  // slowest rank, per iteration
    NcclWrong wrong;
};

// What to run, from the parameters.
struct NcclPlan {
    std::vector<const NcclOp*> ops;
    std::vector<std::size_t> sizes;
    int iterations = 0;
    int warmup = 0;
    bool in_place = true;
};

NcclPlan plan_of(const TestParams& p) {
    NcclPlan plan;
    for (const std::string& name : p.names("collectives")) plan.ops.push_back(find_nccl_op(name));  // declared names
    plan.sizes = comm::size_sweep(p.integer("min_bytes"), p.integer("max_bytes"), p.integer("step_factor"));
    plan.iterations = static_cast<int>(p.integer("iterations"));
    plan.warmup = static_cast<int>(p.integer("warmup"));
    plan.in_place = p.flag("in_place");
    return plan;
}

// One measured point of the sweep.
struct NcclPoint {
    const NcclOp* op = nullptr;
    bool in_place = false;
    std::size_t requested = 0;  // the sweep's size
    std::size_t bytes = 0;      // what the layout moves (nccl-tests' size)
    Measurement measured;
};

TestResult started_result(const NcclPlan& plan, int gpu, int ranks) {
    int version = 0;
    SHAKEDOWN_NCCL(ncclGetVersion(&version));
    TestResult result;
    result.parameters["nccl_version"] = fmt::format("{}", version);
    result.parameters["nccl_environment"] = nccl_environment();
    result.parameters["gpu"] = fmt::format("{}", gpu);
    result.parameters[std::string(communicator_names::communicator_ranks)] = fmt::format("{}", ranks);
    result.parameters["max_bytes_used"] = fmt::format("{}", plan.sizes.back());
    std::vector<std::string> index;
    for (const auto& op : nccl_ops()) index.emplace_back(op.name);
    result.parameters["collective_index"] = fmt::format("{}", fmt::join(index, ","));
    result.samples = SampleTable(nccl_spec().samples);
    return result;
}

// A point as a sample row, its wrong elements, and the metrics at the sweep's ends and the
// nccl-tests reference sizes (bus bandwidth by nccl-tests' factor for the op and rank count).
void report_point(const NcclPoint& point, const NcclPlan& plan, int ranks, TestResult& result, ProblemList& errors) {
    const NcclOp& op = *point.op;
    const Measurement& m = point.measured;
    const double factor = op.bus_factor(ranks);
    const double bytes = static_cast<double>(point.bytes);
    const double algbw = bytes / m.seconds / 1e9;
    const double job_algbw = bytes / m.job_seconds / 1e9;
    const auto op_index = static_cast<double>(point.op - nccl_ops().data());
    result.samples.add_row({op_index, bytes, point.in_place ? 1.0 : 0.0, m.seconds * 1e6, algbw, algbw * factor,
                            m.job_seconds * 1e6, job_algbw, job_algbw * factor, static_cast<double>(m.wrong.count)});
    if (m.wrong.count > 0)
        errors.add(fmt::format("{}{} {} B: {} wrong element{} of {} (first at index {})", op.name,
                               point.in_place ? " in-place" : "", point.bytes, m.wrong.count, m.wrong.count == 1 ? "" : "s",
                               m.wrong.checked, *m.wrong.first_index),
                   m.wrong.count);
    const std::string form = point.in_place ? "_inplace" : "";
    if (point.requested == plan.sizes.back()) {
        result.add_metric(fmt::format("nccl.{}{}_busbw_gbs", op.name, form), job_algbw * factor);
        result.add_metric(fmt::format("nccl.{}{}_algbw_gbs", op.name, form), job_algbw);
    }
    if (const auto ref = reference_sizes.find(point.requested); ref != reference_sizes.end())
        result.add_metric(fmt::format("nccl.{}{}_busbw_{}_gbs", op.name, form, ref->second), job_algbw * factor);
    if (point.requested == plan.sizes.front())
        result.add_metric(fmt::format("nccl.{}{}_latency_us", op.name, form), m.job_seconds * 1e6);
}

class NcclCollectives final : public Test {
public:
    NcclCollectives() : Test(nccl_spec()) {}

    std::optional<std::string> waiver(const RunContext& ctx) const override {
        if (auto waiver = placement::gpu_only_waiver(ctx)) return waiver;  // NCCL refuses two ranks of one communicator on one GPU
        // Over one GPU a collective crosses no link: its bus bandwidth is 0 by definition and its
        // in-place rates are copies that never happen.
        if (const int gpus = ctx.session().gpus_measured(); gpus < 2)
            return job_too_small_waiver("2 GPUs in the job", fmt::format("this run measures {}", gpus));
        return std::nullopt;
    }

    TestResult run(const RunContext& ctx) const override {
        const NcclPlan plan = plan_of(ctx.params());
        const gpu::NcclCommunicator nccl(ctx.comm(), *ctx.session().gpu());
        const gpu::CudaStream stream;
        TestResult result = started_result(plan, *ctx.session().gpu(), nccl.ranks());
        ProblemList errors("results with wrong elements");
        for (const auto* op : plan.ops) {
            const auto largest = nccl_layout(op->kind, plan.sizes.back(), nccl.ranks());
            const gpu::DeviceBuffer<std::byte> input(largest.input_count * sizeof(float));
            const gpu::DeviceBuffer<std::byte> output(largest.output_count * sizeof(float));
            for (const bool in_place : {false, true}) {
                if (in_place && (!op->has_in_place || !plan.in_place)) continue;
                for (const auto requested : plan.sizes) {
                    const auto layout = nccl_layout(op->kind, requested, nccl.ranks());
                    const auto where =
                        nccl_placement(op->kind, layout, input.as<float>(), output.as<float>(), in_place, nccl.rank());
                    const NcclPoint point{op, in_place, requested, layout.bytes,
                                          measure(*op, layout, where, nccl, stream, ctx, plan.iterations, plan.warmup)};
                    report_point(point, plan, nccl.ranks(), result, errors);
                }
            }
        }
        errors.fail(result, fmt::format("{} wrong elements in {} results: ", errors.total(), errors.size()));
        return result;
    }

private:
    static Measurement measure(const NcclOp& op, const NcclLayout& layout, const NcclPlacement& where,
                               const gpu::NcclCommunicator& nccl, const gpu::CudaStream& stream, const RunContext& ctx,
                               int iterations, int warmup) {
        const NcclDataSpec data{op.kind, nccl.rank(), nccl.ranks(), layout.chunk};
        const auto launch = [&] {
            launch_nccl_op(op.kind, where, layout, nccl.rank(), nccl.ranks(), nccl.get(), stream.get());
        };
        fill_nccl_input(data, where.input, where.input_count, stream.get());
        for (int i = 0; i < warmup; ++i) launch();
        stream.synchronize();
        MPI_Barrier(ctx.comm());  // every rank starts its clock together

        gpu::CudaEvent start, stop;
        start.record(stream.get());
        for (int i = 0; i < iterations; ++i) launch();
        stop.record(stream.get());
        Measurement m;
        m.seconds = stop.seconds_since(start) / iterations;
        MPI_Allreduce(&m.seconds, &m.job_seconds, 1, MPI_DOUBLE, MPI_MAX, ctx.comm());

        // Validate one fresh run: in-place forms overwrite their input every iteration.
        fill_nccl_input(data, where.input, where.input_count, stream.get());
        launch();
        m.wrong = count_nccl_wrong(data, where.output, layout.output_count, ctx.faults().corrupt(), stream.get());
        return m;
    }
};

}  // namespace

SHAKEDOWN_REGISTER_TEST(NcclCollectives);

}  // namespace shakedown::mpi
