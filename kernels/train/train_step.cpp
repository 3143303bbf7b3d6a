// `train_step`: what a data-parallel training job gets from these GPUs (or host cores) against N
// times one. One step = forward and backward of a stack of transformer decoder layers with the
// gradients summed over the ranks in buckets, overlapped with the backward as data-parallel
// frameworks do it (train_engine.hpp). Three phases on the same engine (train_phases.hpp) give
// T1 (every rank alone), the node's and the job's step, their efficiencies, and beside them the
// efficiency predicted from the same run's own figures (scaling_model.hpp). The gradients are
// validated across ranks and a small stack against a double-precision reference
// (train_validation.hpp). Names: train_step_names.hpp.
#include "kernels/specs.hpp"
#include "kernels/train/host_blas.hpp"
#include "kernels/train/scaling_model.hpp"
#include "kernels/train/train_engine.hpp"
#include "kernels/train/train_phases.hpp"
#include "kernels/train/train_step_names.hpp"
#include "kernels/train/train_validation.hpp"
#include "placement/placement_names.hpp"

#include "core/communicator.hpp"
#include "core/errors.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "gemm/blas_threads.hpp"
#include "gpu/gpu_facts.hpp"
#include "hardware/cpu_nominal.hpp"
#include "hardware/gpu_specs.hpp"
#include "placement/placement.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace shakedown::kernels {
namespace {

namespace names = train_names;
using train::Bucket;
using train::PhaseFigures;
using train::StepShape;
using train::TrainEngine;

// Relative L2 error a small stack may show against double: fp32 rounds each product and sum to
// 2^-24 (1e-4 leaves room for the softmax's exponentials); bf16 tensors hold 8 bits (a few 2^-8
// through the chain of GEMMs and norms: 6.1e-3 on an H100 with cuDNN 9.14).
constexpr double fp32_reference_bound = 1e-4;
constexpr double bf16_reference_bound = 3e-2;  // an H100 gave 6.1e-3

struct TrainPlan {
    placement::Placement placement = placement::Placement::host;
    std::string model;
    StepShape shape;
    std::string precision;
    std::string attention;
    int steps = 0;
    int warmup = 0;
    std::size_t bucket_bytes = 0;
    int repetitions = 0;
};

TrainPlan plan_training(const RunContext& ctx) {
    const TestParams& params = ctx.params();
    TrainPlan plan;
    plan.placement = placement::choose_placement(ctx, params.text(placement::names::device));
    const bool gpu = plan.placement == placement::Placement::gpu;
    plan.model = params.text("model");
    if (plan.model == "auto") plan.model = gpu ? "llama3_8b" : "tiny";
    if (plan.model == "custom")
        plan.shape.layer = {params.integer("hidden"), params.integer("ffn"), params.integer("heads"), params.integer("kv_heads")};
    else
        plan.shape.layer = *train::preset_shape(plan.model);
    plan.shape.layers = params.optional_integer("layers").value_or(gpu ? 4 : 2);
    plan.shape.sequence = params.optional_integer("sequence").value_or(gpu ? 4096 : 128);
    plan.shape.micro_batch = params.integer("micro_batch");
    plan.precision = params.text("precision");
    if (plan.precision == "auto") plan.precision = gpu ? "bf16" : "fp32";
    if (gpu && plan.precision != "bf16")
        throw InputError("train_step: precision fp32 runs on the host; a GPU runs bf16 (precision: bf16 or auto, or device: host)");
    if (!gpu && plan.precision != "fp32")
        throw InputError("train_step: precision bf16 runs on a GPU; the host runs fp32 (precision: fp32 or auto, or device: gpu)");
    plan.attention = params.text("attention");
    if (!gpu && plan.attention != "auto")
        throw InputError(fmt::format("train_step: attention {} chooses the GPU's attention; the host computes it explicitly "
                                     "(attention: auto, or device: gpu)", plan.attention));
    plan.steps = static_cast<int>(params.integer("steps"));
    plan.warmup = static_cast<int>(params.integer("warmup_steps"));
    plan.bucket_bytes = static_cast<std::size_t>(params.real("bucket_mib") * 1048576.0);
    plan.repetitions = static_cast<int>(params.integer("allreduce_repetitions"));
    return plan;
}

std::unique_ptr<TrainEngine> make_engine(const RunContext& ctx, const TrainPlan& plan, const StepShape& shape) {
    const auto seed = static_cast<std::uint64_t>(ctx.session().world_rank()) + 1;
    if (plan.placement == placement::Placement::host) return train::make_host_engine(shape, seed);
    return train::make_gpu_engine(shape, seed, *placement::usable_gpu(ctx), plan.attention);
}

// The part's dense peak in the step's precision, and the rate of the same GEMM measured here.
std::optional<double> nominal_tflops(const RunContext& ctx, const TrainPlan& plan, int host_ranks) {
    if (plan.placement == placement::Placement::gpu)
        return hardware::gpu_nominal(gpu::query_gpu_facts(*placement::usable_gpu(ctx))).tflops_for("bf16");
    // fp32 SIMD does twice the FP64 FLOP per cycle; this rank's share of the node's cores.
    const hardware::CpuNominal cpu = hardware::derive_cpu_nominal(ctx.inventory());
    if (!cpu.node_gflops) return std::nullopt;
    return 2.0 * *cpu.node_gflops * 1e-3 * placement::cores_per_rank(ctx, host_ranks) / placement::node_cores(ctx);
}

// Gathered over `comm`: every rank's value, in rank order.
std::vector<double> gather(MPI_Comm comm, double mine) {
    int size = 1;
    MPI_Comm_size(comm, &size);
    std::vector<double> all(static_cast<std::size_t>(size));
    MPI_Allgather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, comm);
    return all;
}

std::vector<std::vector<double>> gather_vectors(MPI_Comm comm, const std::vector<double>& mine) {
    int size = 1;
    MPI_Comm_size(comm, &size);
    std::vector<double> flat(mine.size() * static_cast<std::size_t>(size));
    MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, flat.data(), static_cast<int>(mine.size()),
                  MPI_DOUBLE, comm);
    std::vector<std::vector<double>> all;
    for (int rank = 0; rank < size; ++rank)
        all.emplace_back(flat.begin() + rank * static_cast<std::ptrdiff_t>(mine.size()),
                         flat.begin() + (rank + 1) * static_cast<std::ptrdiff_t>(mine.size()));
    return all;
}

// How the node's GPUs are linked, from the inventory's NVML section: what a node's efficiency is
// judged by beside its prediction (PCIe boxes scale as their links allow).
std::string node_topology(const nlohmann::json& inventory, bool gpu) {
    if (!gpu) return "host ranks sharing the node's cores";
    const nlohmann::json* devices = nullptr;
    if (inventory.contains("nvml") && inventory["nvml"].is_object() && inventory["nvml"].contains("devices"))
        devices = &inventory["nvml"]["devices"];
    if (devices == nullptr || !devices->is_array() || devices->empty()) return "no GPU seen by NVML";
    if (devices->size() == 1) return "one GPU";
    int fewest = std::numeric_limits<int>::max();
    for (const auto& device : *devices) {
        const auto& links = device.contains("nvlink_active_links") ? device["nvlink_active_links"] : nlohmann::json();
        fewest = std::min(fewest, links.is_number() ? links.get<int>() : 0);
    }
    return fewest > 0 ? fmt::format("NVLink between its {} GPUs (at least {} links each)", devices->size(), fewest)
                      : fmt::format("PCIe between its {} GPUs (no active NVLink)", devices->size());
}

double finite_median(std::vector<double> values) {
    std::erase_if(values, [](double value) { return !std::isfinite(value); });
    return values.empty() ? std::numeric_limits<double>::quiet_NaN() : stats::median(values);
}

struct Scaling {
    double t1_s = 0.0;        // the scope's median T1
    double step_s = 0.0;      // its median data-parallel step time
    double efficiency = 0.0;  // t1 / step
    double predicted = 0.0;   // t1 / the predicted step time
};

// Over the ranks of `scope` (a node, or the job): measured against predicted, the prediction from
// the median rank's alone schedule with each bucket's sum at `bus_gbs`, beside the backward where
// the engine overlaps them, after it otherwise.
Scaling scaling_over(MPI_Comm scope, const PhaseFigures& alone, const PhaseFigures& phase, const std::vector<Bucket>& buckets,
                     const TrainEngine& engine, double bus_gbs) {
    const std::size_t element_bytes = engine.element_bytes();
    int ranks = 1;
    MPI_Comm_size(scope, &ranks);
    Scaling scaling;
    scaling.t1_s = stats::median(gather(scope, alone.median_s));
    scaling.step_s = stats::median(gather(scope, phase.median_s));
    scaling.efficiency = scaling.t1_s / scaling.step_s;
    const std::vector<double> ready = train::median_per_bucket(gather_vectors(scope, alone.bucket_ready_s));
    const double compute = stats::median(gather(scope, alone.compute_s));
    std::vector<double> comm;
    for (const Bucket& bucket : buckets)
        comm.push_back(train::allreduce_seconds(static_cast<double>(bucket.elements * element_bytes), ranks, bus_gbs));
    // Whatever the alone step spends after its backward (the engine's own end) is added as measured.
    const double tail = std::max(0.0, scaling.t1_s - compute);
    const double communication = std::accumulate(comm.begin(), comm.end(), 0.0);
    const double predicted_step = engine.overlaps_communication() ? train::overlapped_step_s(ready, compute, comm) + tail
                                                                  : scaling.t1_s + communication;
    scaling.predicted = scaling.t1_s / predicted_step;
    return scaling;
}

class TrainStepTest final : public Test {
public:
    TrainStepTest() : Test(train_step_spec()) {}

    std::optional<std::string> waiver(const RunContext& ctx) const override {
        const std::string& device = ctx.params().text(placement::names::device);
        if (auto gpu_waiver = placement::gpu_request_waiver(ctx, device)) return gpu_waiver;
        const bool on_host = device == "host" || (device == "auto" && !placement::usable_gpu(ctx));
        if (on_host && !train::host_blas_built()) return std::string("this shakedown was built without a CBLAS (the host step needs one)");
        if (!on_host && !train::gpu_engine_built()) return std::string("this shakedown was built without the GPU training engine");
        return std::nullopt;
    }

    TestResult run(const RunContext& ctx) const override {
        const TrainPlan plan = plan_training(ctx);
        const bool gpu = plan.placement == placement::Placement::gpu;
        const int host_ranks = placement::ranks_sharing_this_node(ctx, !gpu);
        std::optional<gemm::BlasThreadShare> blas_threads;
        if (!gpu) blas_threads.emplace(std::max(1, static_cast<int>(placement::cores_per_rank(ctx, host_ranks))));
        TestResult result;
        result.samples = SampleTable(train_step_spec().samples);

        // The arithmetic first, on a small stack of the same head dimension.
        const StepShape reference_shape = train::reference_shape(plan.shape.layer);
        const auto seed = static_cast<std::uint64_t>(ctx.session().world_rank()) + 1;
        train::ReferenceCheck reference;
        {
            const auto small = make_engine(ctx, plan, reference_shape);
            reference = train::check_against_reference(*small, reference_shape, seed, gpu);
        }
        const double reference_bound = gpu ? bf16_reference_bound : fp32_reference_bound;
        if (!(reference.worst_error <= reference_bound))
            result.fail(fmt::format("the step's arithmetic is wrong: a small stack's {} is off by {:.3g} (relative L2) from "
                                    "the same step in double (allowed {:.3g})",
                                    reference.worst_tensor, reference.worst_error, reference_bound));

        const auto engine = make_engine(ctx, plan, plan.shape);
        const std::vector<Bucket> buckets = train::make_buckets(engine->layout(), engine->element_bytes(), plan.bucket_bytes);
        const double peak_tflops = engine->gemm_peak_tflops();
        const double delay = ctx.faults().delay_s();

        const Communicator node = Communicator::split(ctx.comm(), ctx.session().identity().node_index, ctx.rank());
        engine->reduce_over(MPI_COMM_NULL);
        const PhaseFigures alone = train::run_phase(*engine, buckets, ctx.comm(), plan.warmup, plan.steps, delay);
        engine->reduce_over(node.get());
        const double node_bus = train::measure_bus_gbs(*engine, node.get(), buckets, plan.repetitions);
        const PhaseFigures node_phase = train::run_phase(*engine, buckets, ctx.comm(), plan.warmup, plan.steps, delay);
        engine->reduce_over(ctx.comm());
        const double job_bus = train::measure_bus_gbs(*engine, ctx.comm(), buckets, plan.repetitions);
        const PhaseFigures job = train::run_phase(*engine, buckets, ctx.comm(), plan.warmup, plan.steps, delay);
        engine->reduce_over(MPI_COMM_NULL);
        const std::optional<double> link = train::measure_node_link_gbs(*engine, ctx.comm(), node.get(), buckets, plan.repetitions);

        // One more step, validated: each rank's own gradient, then the same buckets summed.
        engine->step(buckets, 0.0);
        const train::GradientSummary local = engine->summarize_gradients();
        engine->reduce_over(ctx.comm());
        engine->reduce_gradients(buckets);
        engine->reduce_over(MPI_COMM_NULL);
        if (ctx.faults().corrupt()) engine->corrupt_one_gradient();
        const train::ReductionCheck reduction =
            train::check_reduction(local, engine->summarize_gradients(), engine->unit_roundoff(), ctx.comm());
        if (!reduction.problem.empty()) result.fail(reduction.problem);

        for (const auto& [phase, figures] : {std::pair{names::Phase::alone, &alone}, std::pair{names::Phase::node, &node_phase},
                                             std::pair{names::Phase::job, &job}})
            for (std::size_t step = 0; step < figures->step_s.size(); ++step)
                result.samples.add_row({static_cast<double>(phase), static_cast<double>(step), figures->step_s[step],
                                        figures->exposed_s[step]});

        const Scaling node_scaling = scaling_over(node.get(), alone, node_phase, buckets, *engine, node_bus);
        const Scaling job_scaling = scaling_over(ctx.comm(), alone, job, buckets, *engine, job_bus);
        const std::vector<double> links = gather(ctx.comm(), link.value_or(std::numeric_limits<double>::quiet_NaN()));
        int nodes = node.rank() == 0 ? 1 : 0;
        MPI_Allreduce(MPI_IN_PLACE, &nodes, 1, MPI_INT, MPI_SUM, ctx.comm());

        const double flop = plan.shape.model_flop();
        const double model_tflops = flop / job.median_s * 1e-12;
        result.measured = job.window;  // the phase the step's figures (and their energy) come from
        result.add_metric(std::string(names::step_time_s), job.median_s);
        result.add_metric(std::string(names::step_time_p95_s), job.p95_s);
        result.add_metric(std::string(names::tokens_per_s), static_cast<double>(plan.shape.tokens()) / job.median_s);
        result.add_metric(std::string(names::model_tflops), model_tflops, nominal_tflops(ctx, plan, host_ranks));
        result.add_metric(std::string(names::mfu_of_measured_peak), model_tflops / peak_tflops);
        result.add_metric(std::string(names::measured_peak_tflops), peak_tflops);
        result.add_metric(std::string(names::model_tflop_per_step), flop * 1e-12);
        result.add_metric(std::string(names::exposed_comm_s), job.exposed_median_s);
        result.add_metric(std::string(names::exposed_comm_fraction), job.exposed_median_s / job.median_s);
        double noise = 0.0;
        for (const PhaseFigures* figures : {&alone, &node_phase, &job})
            noise = std::max(noise, (figures->p95_s - figures->median_s) / figures->median_s);
        result.add_metric(std::string(names::step_noise), noise);
        result.add_metric(std::string(names::alone_step_s), alone.median_s);
        result.add_metric(std::string(names::node_step_s), node_phase.median_s);
        result.add_metric(std::string(names::node_efficiency), node_scaling.efficiency);
        result.add_metric(std::string(names::predicted_node_efficiency), node_scaling.predicted);
        result.add_metric(std::string(names::node_busbw_gbs), node_bus);
        result.add_metric(std::string(names::job_efficiency), job_scaling.efficiency);
        result.add_metric(std::string(names::predicted_job_efficiency), job_scaling.predicted);
        result.add_metric(std::string(names::job_busbw_gbs), job_bus);
        if (nodes > 1) result.add_metric(std::string(names::fabric_busbw_gbs), finite_median(links));
        result.add_metric(std::string(names::job_gpus), static_cast<double>(ctx.size()));
        result.add_metric(std::string(names::job_nodes), static_cast<double>(nodes));
        if (link) result.add_metric(std::string(names::node_link_gbs), *link);
        result.add_metric(std::string(names::reference_error), reference.worst_error);
        result.add_metric(std::string(names::gradient_sum_error), reduction.relative_error);

        result.parameters[placement::names::device] = std::string(placement::to_string(plan.placement));
        result.parameters[std::string(names::recorded_model)] = fmt::format(
            "{}: hidden {}, ffn {}, heads {}, kv_heads {}, {} layers, sequence {}, micro_batch {}", plan.model,
            plan.shape.layer.hidden, plan.shape.layer.ffn, plan.shape.layer.heads, plan.shape.layer.kv_heads,
            plan.shape.layers, plan.shape.sequence, plan.shape.micro_batch);
        result.parameters["precision_used"] = plan.precision;
        result.parameters[std::string(names::recorded_engine)] = engine->description();
        result.parameters[std::string(names::recorded_attention)] = engine->attention_path();
        result.parameters[std::string(names::recorded_topology)] = node_topology(ctx.inventory(), gpu);
        result.parameters["buckets"] = fmt::format("{} of up to {:.3g} MiB over {} gradient tensors ({:.3g} MiB)", buckets.size(),
                                                   static_cast<double>(plan.bucket_bytes) / 1048576.0, engine->layout().size(),
                                                   static_cast<double>(buckets.back().offset + buckets.back().elements) *
                                                       static_cast<double>(engine->element_bytes()) / 1048576.0);
        result.parameters["reference_check"] = fmt::format("{} layers of hidden {} ({} heads), sequence {}: worst {} {:.3g}",
                                                           reference_shape.layers, reference_shape.layer.hidden,
                                                           reference_shape.layer.heads, reference_shape.sequence,
                                                           reference.worst_tensor, reference.worst_error);
        result.parameters["gradient_check"] = fmt::format("checksum error {:.3g} (bound {:.3g}), {} distinct reduced-gradient hash(es) over {} ranks",
                                                          reduction.relative_error, reduction.bound, reduction.distinct_hashes, ctx.size());
        result.parameters["prediction"] = fmt::format(
            "job: median T1 {:.4g} s, step {:.4g} s, all-reduce bus bandwidth {:.4g} GB/s; node: T1 {:.4g} s, step {:.4g} s, {:.4g} "
            "GB/s; the bucket sums {}",
            job_scaling.t1_s, job_scaling.step_s, job_bus, node_scaling.t1_s, node_scaling.step_s, node_bus,
            engine->overlaps_communication() ? "overlap the backward on their own stream"
                                             : "add to the step (MPI progresses them on the computing cores)");
        return result;
    }
};

SHAKEDOWN_REGISTER_TEST(TrainStepTest);

}  // namespace
}  // namespace shakedown::kernels
