#include "kernels/specs.hpp"
#include "kernels/train/train_shape.hpp"
#include "kernels/train/train_step_names.hpp"
#include "placement/placement_names.hpp"

#include "core/errors.hpp"
#include "core/registry.hpp"

#include <fmt/format.h>

#include <string>

namespace shakedown::kernels {
namespace {

namespace names = train_names;

constexpr const char* shape_keys[] = {"hidden", "ffn", "heads", "kv_heads"};

// A preset fixes the layer's dimensions, `custom` needs all four; a shape that cannot run is
// refused here, before any rank starts.
void check_train_parameters(const TestParams& params, int /*world_size*/) {
    const std::string model = params.text("model");
    if (model == "custom") {
        train::LayerShape shape;
        std::int64_t* fields[] = {&shape.hidden, &shape.ffn, &shape.heads, &shape.kv_heads};
        for (int i = 0; i < 4; ++i) {
            const auto value = params.optional_integer(shape_keys[i]);
            if (!value) throw InputError(fmt::format("train_step: model custom needs {} (give hidden, ffn, heads and kv_heads)", shape_keys[i]));
            *fields[i] = *value;
        }
        if (const std::string problem = train::shape_problem(shape); !problem.empty())
            throw InputError(fmt::format("train_step: model custom: {}", problem));
        return;
    }
    for (const char* key : shape_keys)
        if (params.optional_integer(key))
            throw InputError(fmt::format("train_step: {} is set by model {}; use model: custom to give the layer's dimensions",
                                         key, model));
}

}  // namespace

const TestSpec& train_step_spec() {
    static const TestSpec spec{
        .key = std::string(names::key),
        .description = "data-parallel training step of transformer decoder layers (GPU: bf16 cuBLASLt + fused attention + "
                       "NCCL; host: fp32 BLAS + MPI), scaling alone / node / job against a prediction, gradients validated",
        .suites = {"quick", "full"},
        .parameters =
            {
                placement::names::device_parameter(),
                ParamSpec::choice("model", "auto", {"auto", "llama3_8b", "llama3_70b", "tiny", "custom"},
                                  "the layer's dimensions: a published model's (llama3_8b: hidden 4096, ffn 14336, 32 heads, 8 "
                                  "key/value heads; llama3_70b: 8192, 28672, 64, 8), tiny (256, 768, 4, 2), custom (hidden, "
                                  "ffn, heads, kv_heads given), or auto: llama3_8b on a GPU, tiny on the host"),
                ParamSpec::integer("hidden", automatic, "model custom: hidden size").allow_auto("the model's").between(8, 65536),
                ParamSpec::integer("ffn", automatic, "model custom: feed-forward size").allow_auto("the model's").between(8, 262144),
                ParamSpec::integer("heads", automatic, "model custom: query heads").allow_auto("the model's").between(1, 1024),
                ParamSpec::integer("kv_heads", automatic, "model custom: key/value heads (grouped-query attention)")
                    .allow_auto("the model's")
                    .between(1, 1024),
                ParamSpec::integer("layers", automatic, "decoder layers in the stack").allow_auto("4 on a GPU, 2 on the host").between(1, 1024),
                ParamSpec::integer("sequence", automatic, "tokens per sequence").allow_auto("4096 on a GPU, 128 on the host").between(8, 1 << 20),
                ParamSpec::integer("micro_batch", 1, "sequences per rank per step").between(1, 4096),
                ParamSpec::choice("precision", "auto", {"auto", "bf16", "fp32"},
                                  "bf16 (a GPU: bf16 tensors, fp32 accumulation), fp32 (the host), or auto: bf16 on a GPU, fp32 on the host"),
                ParamSpec::choice("attention", "auto", {"auto", "cudnn", "batched_gemm"},
                                  "GPU attention: cudnn (cuDNN's fused scaled-dot-product attention, loaded at run time), "
                                  "batched_gemm (explicit scores through cuBLAS), or auto: cudnn where it loads, else batched_gemm"),
                ParamSpec::integer("steps", 10, "timed steps in each phase").between(1, 100000).in_suite("quick", 6),
                ParamSpec::integer("warmup_steps", 2, "untimed steps before each phase").between(0, 100000),
                ParamSpec::real("bucket_mib", 25.0, "gradient bucket size in MiB (PyTorch DDP's default)").between(0.001, 1 << 20),
                ParamSpec::integer("allreduce_repetitions", 5, "timed all-reduces per bus-bandwidth figure").between(1, 10000),
            },
        .metrics =
            {
                {std::string(names::step_time_s), "s", Better::lower, "median step time, data-parallel over every rank (job phase)"},
                {std::string(names::step_time_p95_s), "s", Better::lower, "its 95th percentile"},
                {std::string(names::tokens_per_s), "token/s", Better::higher, "tokens per second per GPU (rank), job phase"},
                {std::string(names::model_tflops), "TFLOP/s", Better::higher,
                 "model FLOP per second (6 per parameter per token + attention), nominal: the part's dense peak (MFU)"},
                {std::string(names::mfu_of_measured_peak), "fraction", Better::higher,
                 "model FLOP rate over this run's own GEMM rate of the same precision"},
                {std::string(names::measured_peak_tflops), "TFLOP/s", Better::higher,
                 "GEMM of the stack's largest product in the same precision, measured in the same test"},
                {std::string(names::model_tflop_per_step), "TFLOP", Better::higher, "model FLOP of one step on one rank"},
                {std::string(names::exposed_comm_s), "s", Better::lower, "median time a step waits for its all-reduces after its compute"},
                {std::string(names::exposed_comm_fraction), "fraction", Better::lower, "that time over the step time"},
                {std::string(names::step_noise), "fraction", Better::lower,
                 "scatter of the step times, (p95 - median) / median, the largest of the three phases"},
                {std::string(names::alone_step_s), "s", Better::lower, "median step time with every rank alone (no gradient exchange): T1"},
                {std::string(names::node_step_s), "s", Better::lower, "median step time, data-parallel over the node's ranks"},
                {std::string(names::node_efficiency), "fraction", Better::higher, "the node's median T1 over its data-parallel step time"},
                {std::string(names::predicted_node_efficiency), "fraction", Better::higher,
                 "the same predicted from the node's T1 schedule and its measured all-reduce bus bandwidth"},
                {std::string(names::node_busbw_gbs), "GB/s", Better::higher, "all-reduce bus bandwidth over the node's ranks (a bucket)"},
                {std::string(names::job_efficiency), "fraction", Better::higher, "the job's median T1 over its data-parallel step time",
                 MetricScope::job},
                {std::string(names::predicted_job_efficiency), "fraction", Better::higher,
                 "the same predicted from the median rank's T1 schedule and the job's measured bus bandwidth", MetricScope::job},
                {std::string(names::job_busbw_gbs), "GB/s", Better::higher, "all-reduce bus bandwidth over every rank (a bucket)",
                 MetricScope::job},
                {std::string(names::fabric_busbw_gbs), "GB/s", Better::higher,
                 "median of the nodes' link figures (several nodes only)", MetricScope::job},
                {std::string(names::job_gpus), "count", Better::higher, "ranks in the data-parallel job", MetricScope::job},
                {std::string(names::job_nodes), "count", Better::higher, "nodes in it", MetricScope::job},
                {std::string(names::node_link_gbs), "GB/s", Better::higher,
                 "node leaders: median bus bandwidth of all-reduces with up to 3 other nodes' leaders"},
                {std::string(names::reference_error), "1", Better::lower,
                 "relative L2 error of a small stack's output and gradients against the same step in double",
                 MetricScope::rank, PhysicalBound::none, NominalRole::tolerance},
                {std::string(names::gradient_sum_error), "1", Better::lower,
                 "this rank's reduced-gradient checksum against the sum of the ranks' checksums, over their magnitude",
                 MetricScope::rank, PhysicalBound::none, NominalRole::tolerance},
            },
        .samples = {{std::string(names::column_phase), "index"},
                    {std::string(names::column_step), "count"},
                    {std::string(names::column_seconds), "s"},
                    {std::string(names::column_exposed_comm), "s"}},
        .default_deadline_s = 900.0,
        .check_parameters = check_train_parameters,
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(train_step_spec);

}  // namespace shakedown::kernels
