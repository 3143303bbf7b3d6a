// cuBLASLt matmul plans for the GEMM ladder: RAII owners of the descriptors, one plan per
// (types, layout, scales), the heuristic's top algorithms, and a readable algorithm name.
// A plan that cuBLASLt cannot describe (a type combination it lacks) is an answer, not an
// error: make_lt_plan returns the library's status and the ladder falls back to cublasGemmEx.
#pragma once

#include "gpu/cublas_handles.hpp"

#include <cublasLt.h>
#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace shakedown::kernels {

template <typename Handle, cublasStatus_t (*Destroy)(Handle)>
class LtObject {
public:
    LtObject() = default;
    ~LtObject() {
        if (handle_) Destroy(handle_);
    }
    LtObject(const LtObject&) = delete;
    LtObject& operator=(const LtObject&) = delete;
    Handle* out() { return &handle_; }
    Handle get() const { return handle_; }

private:
    Handle handle_ = nullptr;
};
using MatmulDesc = LtObject<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>;
using MatrixLayout = LtObject<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>;
using MatmulPreference = LtObject<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy>;

// Answers that mean "not this set-up / algorithm" (try the next one) rather than a broken GPU.
inline bool is_refusal(cublasStatus_t status) {
    return status == CUBLAS_STATUS_NOT_SUPPORTED || status == CUBLAS_STATUS_INVALID_VALUE ||
           status == CUBLAS_STATUS_ARCH_MISMATCH;
}

inline std::string describe_algorithm(const cublasLtMatmulAlgo_t& algo) {
    int id = -1;
    std::uint32_t tile = 0, stages = 0;
    std::int32_t split_k = 0;
    std::uint16_t cluster = 0;
    std::size_t written = 0;
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &written);
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &written);
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, &written);
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &split_k, sizeof split_k, &written);
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cluster, sizeof cluster, &written);
    return fmt::format("id {} tile {} stages {} split-k {} cluster {}", id, tile, stages, split_k, cluster);
}

// What one square n x n GEMM D = op(A) B (+ beta C, beta 0) looks like to cuBLASLt.
struct LtPlanSpec {
    std::size_t n = 0;
    cudaDataType input = CUDA_R_32F;
    cudaDataType output = CUDA_R_32F;
    cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
    cudaDataType scale_type = CUDA_R_32F;  // alpha/beta
    bool transpose_a = true;               // TN (A stored k x m) or NN (A stored m x k)
    std::size_t workspace_bytes = 0;
    const float* a_scale = nullptr;        // fp8 only: device pointers, each its own allocation
    const float* b_scale = nullptr;
    int fast_accumulation = -1;            // fp8 only: 0/1 sets CUBLASLT_MATMUL_DESC_FAST_ACCUM
    bool c_is_d = true;                    // otherwise C = nullptr (beta 0 allows it)
};

struct LtPlan {
    MatmulDesc desc;
    MatrixLayout a, b, c, d;
    MatmulPreference preference;
    std::size_t workspace_bytes = 0;
    bool c_is_d = true;
};

// The plan, or nullptr with the first status cuBLASLt answered in `status`.
inline std::unique_ptr<LtPlan> make_lt_plan(const LtPlanSpec& spec, cublasStatus_t& status) {
    auto plan = std::make_unique<LtPlan>();
    status = CUBLAS_STATUS_SUCCESS;
    const auto step = [&status](cublasStatus_t answer) {
        if (status == CUBLAS_STATUS_SUCCESS) status = answer;
        return status == CUBLAS_STATUS_SUCCESS;
    };
    if (!step(cublasLtMatmulDescCreate(plan->desc.out(), spec.compute, spec.scale_type))) return nullptr;
    const cublasLtMatmulDesc_t desc = plan->desc.get();
    const cublasOperation_t op_a = spec.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N, op_b = CUBLAS_OP_N;
    step(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof op_a));
    step(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof op_b));
    if (spec.fast_accumulation >= 0) {
        const std::int8_t fast = static_cast<std::int8_t>(spec.fast_accumulation);
        step(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast));
    }
    if (spec.a_scale) step(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &spec.a_scale, sizeof spec.a_scale));
    if (spec.b_scale) step(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &spec.b_scale, sizeof spec.b_scale));
    const auto rows = static_cast<std::uint64_t>(spec.n);
    const auto ld = static_cast<std::int64_t>(spec.n);
    step(cublasLtMatrixLayoutCreate(plan->a.out(), spec.input, rows, rows, ld));
    step(cublasLtMatrixLayoutCreate(plan->b.out(), spec.input, rows, rows, ld));
    step(cublasLtMatrixLayoutCreate(plan->c.out(), spec.output, rows, rows, ld));
    step(cublasLtMatrixLayoutCreate(plan->d.out(), spec.output, rows, rows, ld));
    step(cublasLtMatmulPreferenceCreate(plan->preference.out()));
    plan->workspace_bytes = spec.workspace_bytes;
    if (plan->preference.get())
        step(cublasLtMatmulPreferenceSetAttribute(plan->preference.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                  &plan->workspace_bytes, sizeof plan->workspace_bytes));
    plan->c_is_d = spec.c_is_d;
    if (status != CUBLAS_STATUS_SUCCESS) return nullptr;
    return plan;
}

// Up to `wanted` algorithms in the heuristic's order, those it marks usable; `status` is its answer.
inline std::vector<cublasLtMatmulHeuristicResult_t> heuristic_algorithms(cublasLtHandle_t lt, const LtPlan& plan, int wanted,
                                                                         cublasStatus_t& status) {
    std::vector<cublasLtMatmulHeuristicResult_t> offered(static_cast<std::size_t>(wanted));
    int count = 0;
    status = cublasLtMatmulAlgoGetHeuristic(lt, plan.desc.get(), plan.a.get(), plan.b.get(), plan.c.get(), plan.d.get(),
                                            plan.preference.get(), wanted, offered.data(), &count);
    if (status != CUBLAS_STATUS_SUCCESS) return {};
    offered.resize(static_cast<std::size_t>(count));
    std::vector<cublasLtMatmulHeuristicResult_t> usable;
    for (const auto& result : offered)
        if (result.state == CUBLAS_STATUS_SUCCESS) usable.push_back(result);
    return usable;
}

}  // namespace shakedown::kernels
