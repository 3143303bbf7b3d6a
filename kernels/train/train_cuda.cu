// The GPU engine of train_step (train_engine.hpp): the layer stack of host_layers.hpp in bf16 with
// fp32 accumulation. Projections and the FFN through cuBLASLt (the residual adds are the GEMMs'
// beta = 1), attention through cuDNN's fused kernels (cudnn_attention.hpp) or, where cuDNN is
// absent, explicit scores through strided-batched cuBLAS GEMMs, the rest in
// train_cuda_kernels.cu. The backward records an event as each bucket's last gradient is written;
// a second stream waits for it and sums the bucket with NCCL, overlapped with the backward of the
// layers below, as data-parallel frameworks do.
#include "kernels/ladder/cublaslt_plan.hpp"
#include "kernels/train/cudnn_attention.hpp"
#include "kernels/train/train_cuda_kernels.hpp"
#include "kernels/train/train_engine.hpp"
#include "kernels/train/train_init.hpp"

#include "core/errors.hpp"
#include "gpu/cublas_handles.hpp"
#include "gpu/cuda_owners.hpp"
#include "gpu/nccl_communicator.hpp"

#include <cuda_bf16.h>
#include <cudnn_version.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <thread>
#include <tuple>

namespace shakedown::kernels::train {
namespace {

using cuda::bf16;
using gpu::CudaEvent;
using gpu::CudaStream;
using gpu::DeviceBuffer;

constexpr std::size_t lt_workspace_bytes = std::size_t{64} << 20;

// Row-major GEMMs through cuBLASLt: D = alpha op(A) op(B) + beta C with C = D, bf16 in and out,
// fp32 accumulation. A row-major m x n matrix is its column-major transpose, so the product is
// asked for as D^T = op(B)^T op(A)^T. One plan (descriptors and the heuristic's algorithm) per
// shape, made on first use.
class RowMajorGemm {
public:
    RowMajorGemm(cudaStream_t stream) : stream_(stream), workspace_(lt_workspace_bytes) {}

    void operator()(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const bf16* a, std::int64_t lda,
                    const bf16* b, std::int64_t ldb, float beta, bf16* c, std::int64_t ldc) {
        const Plan& plan = plan_for(ta, tb, m, n, k, lda, ldb, ldc);
        const float alpha = 1.0f;
        SHAKEDOWN_CUBLAS(cublasLtMatmul(lt_.get(), plan.desc.get(), &alpha, b, plan.a.get(), a, plan.b.get(), &beta, c,
                                        plan.c.get(), c, plan.c.get(), &plan.algorithm, workspace_.get(),
                                        workspace_.bytes(), stream_));
    }

private:
    struct Plan {
        MatmulDesc desc;
        MatrixLayout a, b, c;
        cublasLtMatmulAlgo_t algorithm{};
    };

    const Plan& plan_for(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t lda,
                         std::int64_t ldb, std::int64_t ldc) {
        const auto key = std::make_tuple(ta, tb, m, n, k, lda, ldb, ldc);
        if (const auto found = plans_.find(key); found != plans_.end()) return *found->second;
        auto plan = std::make_unique<Plan>();
        SHAKEDOWN_CUBLAS(cublasLtMatmulDescCreate(plan->desc.out(), CUBLAS_COMPUTE_32F, CUDA_R_32F));
        // Column-major view: first operand is B (op tb), second is A (op ta).
        const cublasOperation_t op_first = tb ? CUBLAS_OP_T : CUBLAS_OP_N, op_second = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
        SHAKEDOWN_CUBLAS(cublasLtMatmulDescSetAttribute(plan->desc.get(), CUBLASLT_MATMUL_DESC_TRANSA, &op_first, sizeof op_first));
        SHAKEDOWN_CUBLAS(cublasLtMatmulDescSetAttribute(plan->desc.get(), CUBLASLT_MATMUL_DESC_TRANSB, &op_second, sizeof op_second));
        const auto u = [](std::int64_t value) { return static_cast<std::uint64_t>(value); };
        SHAKEDOWN_CUBLAS(cublasLtMatrixLayoutCreate(plan->a.out(), CUDA_R_16BF, tb ? u(k) : u(n), tb ? u(n) : u(k), ldb));
        SHAKEDOWN_CUBLAS(cublasLtMatrixLayoutCreate(plan->b.out(), CUDA_R_16BF, ta ? u(m) : u(k), ta ? u(k) : u(m), lda));
        SHAKEDOWN_CUBLAS(cublasLtMatrixLayoutCreate(plan->c.out(), CUDA_R_16BF, u(n), u(m), ldc));
        MatmulPreference preference;
        SHAKEDOWN_CUBLAS(cublasLtMatmulPreferenceCreate(preference.out()));
        std::size_t workspace = workspace_.bytes();
        SHAKEDOWN_CUBLAS(cublasLtMatmulPreferenceSetAttribute(preference.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                              &workspace, sizeof workspace));
        cublasLtMatmulHeuristicResult_t result{};
        int found = 0;
        SHAKEDOWN_CUBLAS(cublasLtMatmulAlgoGetHeuristic(lt_.get(), plan->desc.get(), plan->a.get(), plan->b.get(),
                                                        plan->c.get(), plan->c.get(), preference.get(), 1, &result, &found));
        if (found == 0)
            throw gpu::GpuError(fmt::format("cuBLASLt has no bf16 algorithm for a {}x{}x{} product", m, n, k));
        plan->algorithm = result.algo;
        return *(plans_[key] = std::move(plan));
    }

    cudaStream_t stream_;
    gpu::CublasLtHandle lt_;
    DeviceBuffer<std::uint8_t> workspace_;
    std::map<std::tuple<bool, bool, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t>,
             std::unique_ptr<Plan>>
        plans_;
};

// Everything one layer's forward keeps for its backward.
struct LayerActivations {
    DeviceBuffer<float> rstd1, rstd2, stats;
    DeviceBuffer<bf16> n1, qkv, attention, x2, n2, gate_up, h, probabilities;
};

class GpuEngine final : public TrainEngine {
public:
    GpuEngine(const StepShape& shape, std::uint64_t rank_seed, int device, const std::string& attention)
        : shape_(shape), layout_(parameter_layout(shape)), device_(device), selection_(device),
          comm_stream_(gpu::StreamPriority::highest), gemm_(compute_.get()) {
        const LayerShape& l = shape.layer;
        const auto tokens = static_cast<std::size_t>(shape.tokens());
        const auto hidden = static_cast<std::size_t>(l.hidden), ffn = static_cast<std::size_t>(l.ffn);
        const auto attention_width = static_cast<std::size_t>(l.heads * l.head_dim());
        const auto qkv_width = static_cast<std::size_t>(l.qkv_width());
        std::size_t total = 0;
        for (const TensorSlot& slot : layout_) total += slot.elements;
        parameters_ = DeviceBuffer<bf16>(total);
        gradients_ = DeviceBuffer<bf16>(total);
        for (const TensorSlot& slot : layout_) {
            const bool norm = slot.kind == TensorKind::norm_ffn || slot.kind == TensorKind::norm_attention;
            cuda::fill_parameters(parameters_.get(), slot.offset, slot.elements, norm,
                                  1.0f / std::sqrt(static_cast<float>(slot.columns)), compute_.get());
        }
        for (std::int64_t layer = 0; layer <= shape.layers; ++layer) stream_values_.emplace_back(tokens * hidden);
        output_gradient_ = DeviceBuffer<bf16>(tokens * hidden);
        cuda::fill_inputs(stream_values_[0].get(), output_gradient_.get(), tokens * hidden, rank_seed, compute_.get());

        std::string why_not;
        if (attention != "batched_gemm") {
            const AttentionShape attention_shape{static_cast<int>(shape.micro_batch), static_cast<int>(l.heads),
                                                 static_cast<int>(l.kv_heads), static_cast<int>(shape.sequence),
                                                 static_cast<int>(l.head_dim())};
            cudnn_ = CudnnAttention::create(attention_shape, compute_.get(), why_not);
            if (!cudnn_ && attention == "cudnn") throw InputError("train_step: attention cudnn: " + why_not);
        }
        attention_note_ = cudnn_ ? cudnn_->description() : "explicit scores through cuBLAS batched GEMMs" +
                                                                (why_not.empty() ? std::string() : " (cuDNN: " + why_not + ")");
        const auto score_elements = static_cast<std::size_t>(shape.micro_batch * l.heads * shape.sequence * shape.sequence);
        for (std::int64_t layer = 0; layer < shape.layers; ++layer) {
            LayerActivations a;
            a.rstd1 = DeviceBuffer<float>(tokens);
            a.rstd2 = DeviceBuffer<float>(tokens);
            a.n1 = DeviceBuffer<bf16>(tokens * hidden);
            a.qkv = DeviceBuffer<bf16>(tokens * qkv_width);
            a.attention = DeviceBuffer<bf16>(tokens * attention_width);
            a.x2 = DeviceBuffer<bf16>(tokens * hidden);
            a.n2 = DeviceBuffer<bf16>(tokens * hidden);
            a.gate_up = DeviceBuffer<bf16>(tokens * 2 * ffn);
            a.h = DeviceBuffer<bf16>(tokens * ffn);
            if (cudnn_)
                a.stats = DeviceBuffer<float>(static_cast<std::size_t>(shape.micro_batch * l.heads * shape.sequence));
            else
                a.probabilities = DeviceBuffer<bf16>(score_elements);
            saved_.push_back(std::move(a));
        }
        // Backward scratch, reused by every layer.
        d_out_ = DeviceBuffer<bf16>(tokens * hidden);
        d_in_ = DeviceBuffer<bf16>(tokens * hidden);
        dx2_ = DeviceBuffer<bf16>(tokens * hidden);
        dn_ = DeviceBuffer<bf16>(tokens * hidden);
        dh_ = DeviceBuffer<bf16>(tokens * ffn);
        d_gate_up_ = DeviceBuffer<bf16>(tokens * 2 * ffn);
        d_attention_ = DeviceBuffer<bf16>(tokens * attention_width);
        d_qkv_ = DeviceBuffer<bf16>(tokens * qkv_width);
        d_gain_ = DeviceBuffer<float>(hidden);
        if (!cudnn_) {
            const auto group_scores = static_cast<std::size_t>(l.heads / l.kv_heads * shape.sequence * shape.sequence);
            scores_ = DeviceBuffer<float>(group_scores);
            d_scores_bf16_ = DeviceBuffer<bf16>(group_scores);
        }
        sums_ = DeviceBuffer<double>(2);
        hash_ = DeviceBuffer<unsigned long long>(1);
        compute_.synchronize();
    }

    std::string description() const override {
        return fmt::format("GPU {} bf16: cuBLASLt GEMMs (fp32 accumulation), attention {}, NCCL {}.{}.{} per bucket on a "
                           "second stream",
                           device_, attention_note_, NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);
    }
    std::string attention_path() const override { return cudnn_ ? "cudnn" : "batched_gemm"; }
    const std::vector<TensorSlot>& layout() const override { return layout_; }
    std::size_t element_bytes() const override { return sizeof(bf16); }
    double unit_roundoff() const override { return 1.0 / 256.0; }
    bool overlaps_communication() const override { return true; }

    void reduce_over(MPI_Comm comm) override {
        if (comm == reduce_comm_) return;
        nccl_.reset();
        reduce_comm_ = comm;
        if (comm != MPI_COMM_NULL) nccl_ = std::make_unique<gpu::NcclCommunicator>(comm, device_);
    }

    StepTimes step(const std::vector<Bucket>& buckets, double delay_s) override {
        while (bucket_events_.size() < buckets.size()) bucket_events_.push_back(std::make_unique<CudaEvent>());
        start_.record(compute_.get());
        forward(delay_s);
        std::size_t next_bucket = 0;
        backward([&](std::size_t slot) {
            const auto closed = bucket_closed_by(buckets, slot);
            if (!closed) return;
            bucket_events_[*closed]->record(compute_.get());
            next_bucket = *closed + 1;
            if (nccl_) reduce_bucket(buckets[*closed], *bucket_events_[*closed]);
        });
        compute_end_.record(compute_.get());
        comm_end_.record(comm_stream_.get());
        compute_.synchronize();
        comm_stream_.synchronize();
        StepTimes times;
        times.compute_s = compute_end_.seconds_since(start_);
        times.seconds = std::max(times.compute_s, nccl_ ? comm_end_.seconds_since(start_) : 0.0);
        for (std::size_t bucket = 0; bucket < next_bucket; ++bucket)
            times.bucket_ready_s.push_back(bucket_events_[bucket]->seconds_since(start_));
        times.bucket_ready_s.resize(buckets.size(), times.compute_s);
        return times;
    }

    double time_allreduce(std::size_t elements, int repetitions) override {
        if (!nccl_) return 0.0;
        elements = std::min(elements, gradients_.size());
        std::vector<double> seconds;
        for (int repetition = 0; repetition <= repetitions; ++repetition) {
            MPI_Barrier(reduce_comm_);
            CudaEvent begin, end;
            begin.record(comm_stream_.get());
            SHAKEDOWN_NCCL(ncclAllReduce(gradients_.get(), gradients_.get(), elements, ncclBfloat16, ncclSum, nccl_->get(),
                                         comm_stream_.get()));
            end.record(comm_stream_.get());
            double mine = end.seconds_since(begin);
            MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_DOUBLE, MPI_MAX, reduce_comm_);
            if (repetition > 0) seconds.push_back(mine);
        }
        std::sort(seconds.begin(), seconds.end());
        return seconds[seconds.size() / 2];
    }

    void reduce_gradients(const std::vector<Bucket>& buckets) override {
        if (!nccl_) return;
        CudaEvent ready;
        ready.record(compute_.get());
        for (const Bucket& bucket : buckets) reduce_bucket(bucket, ready);
        comm_stream_.synchronize();
    }

    GradientSummary summarize_gradients() override {
        SHAKEDOWN_CUDA(cudaMemsetAsync(sums_.get(), 0, sums_.bytes(), compute_.get()));
        SHAKEDOWN_CUDA(cudaMemsetAsync(hash_.get(), 0, hash_.bytes(), compute_.get()));
        cuda::summarize(gradients_.get(), gradients_.size(), sums_.get(), hash_.get(), compute_.get());
        double sums[2] = {0.0, 0.0};
        unsigned long long hash = 0;
        SHAKEDOWN_CUDA(cudaMemcpyAsync(sums, sums_.get(), sizeof sums, cudaMemcpyDeviceToHost, compute_.get()));
        SHAKEDOWN_CUDA(cudaMemcpyAsync(&hash, hash_.get(), sizeof hash, cudaMemcpyDeviceToHost, compute_.get()));
        compute_.synchronize();
        return {sums[0], sums[1], hash};
    }

    void corrupt_one_gradient() override {
        bf16* victim = gradients_.get() + gradients_.size() / 2;
        bf16 value;
        SHAKEDOWN_CUDA(cudaMemcpy(&value, victim, sizeof value, cudaMemcpyDeviceToHost));
        value = __float2bfloat16(__bfloat162float(value) * 2.0f + 1.0f);
        SHAKEDOWN_CUDA(cudaMemcpy(victim, &value, sizeof value, cudaMemcpyHostToDevice));
    }

    double gemm_peak_tflops() override {
        const LayerShape& l = shape_.layer;
        const std::int64_t m = shape_.tokens(), n = 2 * l.ffn, k = l.hidden;
        const TensorSlot& weights = slot_of(layout_, 0, TensorKind::w_gate_up);
        const auto product = [&] {
            gemm_(false, true, m, n, k, stream_values_[0].get(), k, parameters_.get() + weights.offset, k, 0.0f,
                  saved_[0].gate_up.get(), n);
        };
        for (int warmup = 0; warmup < 3; ++warmup) product();
        std::vector<double> rates;
        for (int repetition = 0; repetition < 10; ++repetition) {
            CudaEvent begin, end;
            begin.record(compute_.get());
            product();
            end.record(compute_.get());
            rates.push_back(2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) /
                            end.seconds_since(begin) * 1e-12);
        }
        std::sort(rates.begin(), rates.end());
        return rates[rates.size() / 2];
    }

    std::vector<float> output() override { return download(stream_values_.back()); }
    std::vector<float> gradients() override { return download(gradients_); }

private:
    const bf16* param(std::int64_t layer, TensorKind kind) const { return parameters_.get() + slot_of(layout_, layer, kind).offset; }
    bf16* grad(std::int64_t layer, TensorKind kind) { return gradients_.get() + slot_of(layout_, layer, kind).offset; }

    std::vector<float> download(const DeviceBuffer<bf16>& buffer) {
        compute_.synchronize();
        std::vector<bf16> raw(buffer.size());
        SHAKEDOWN_CUDA(cudaMemcpy(raw.data(), buffer.get(), buffer.bytes(), cudaMemcpyDeviceToHost));
        std::vector<float> values(raw.size());
        for (std::size_t i = 0; i < raw.size(); ++i) values[i] = __bfloat162float(raw[i]);
        return values;
    }

    void reduce_bucket(const Bucket& bucket, const CudaEvent& ready) {
        SHAKEDOWN_CUDA(cudaStreamWaitEvent(comm_stream_.get(), ready.get(), 0));
        SHAKEDOWN_NCCL(ncclAllReduce(gradients_.get() + bucket.offset, gradients_.get() + bucket.offset, bucket.elements,
                                     ncclBfloat16, ncclSum, nccl_->get(), comm_stream_.get()));
    }

    void forward(double delay_s) {
        const LayerShape& l = shape_.layer;
        const std::int64_t n = shape_.tokens(), h = l.hidden, f = l.ffn, a = l.heads * l.head_dim(), w = l.qkv_width();
        const cudaStream_t s = compute_.get();
        for (std::int64_t layer = 0; layer < shape_.layers; ++layer) {
            LayerActivations& saved = saved_[static_cast<std::size_t>(layer)];
            const bf16* x = stream_values_[static_cast<std::size_t>(layer)].get();
            cuda::rmsnorm_forward(x, param(layer, TensorKind::norm_attention), saved.n1.get(), saved.rstd1.get(), n, h, s);
            gemm_(false, true, n, w, h, saved.n1.get(), h, param(layer, TensorKind::w_qkv), h, 0.0f, saved.qkv.get(), w);
            attention_forward(saved);
            SHAKEDOWN_CUDA(cudaMemcpyAsync(saved.x2.get(), x, saved.x2.bytes(), cudaMemcpyDeviceToDevice, s));
            gemm_(false, true, n, h, a, saved.attention.get(), a, param(layer, TensorKind::w_out), a, 1.0f, saved.x2.get(), h);
            cuda::rmsnorm_forward(saved.x2.get(), param(layer, TensorKind::norm_ffn), saved.n2.get(), saved.rstd2.get(), n, h, s);
            gemm_(false, true, n, 2 * f, h, saved.n2.get(), h, param(layer, TensorKind::w_gate_up), h, 0.0f,
                  saved.gate_up.get(), 2 * f);
            cuda::swiglu_forward(saved.gate_up.get(), saved.h.get(), n, f, s);
            bf16* out = stream_values_[static_cast<std::size_t>(layer + 1)].get();
            SHAKEDOWN_CUDA(cudaMemcpyAsync(out, saved.x2.get(), saved.x2.bytes(), cudaMemcpyDeviceToDevice, s));
            gemm_(false, true, n, h, f, saved.h.get(), f, param(layer, TensorKind::w_down), f, 1.0f, out, h);
            if (delay_s > 0.0) std::this_thread::sleep_for(std::chrono::duration<double>(delay_s));  // a planted slow rank
        }
    }

    template <typename OnReady>
    void backward(OnReady&& on_ready) {
        const LayerShape& l = shape_.layer;
        const std::int64_t n = shape_.tokens(), h = l.hidden, f = l.ffn, a = l.heads * l.head_dim(), w = l.qkv_width();
        const cudaStream_t s = compute_.get();
        SHAKEDOWN_CUDA(cudaMemcpyAsync(d_out_.get(), output_gradient_.get(), d_out_.bytes(), cudaMemcpyDeviceToDevice, s));
        std::size_t slot = 0;  // the layout lists the tensors in the order this finishes them
        for (std::int64_t layer = shape_.layers - 1; layer >= 0; --layer) {
            LayerActivations& saved = saved_[static_cast<std::size_t>(layer)];
            const bf16* x = stream_values_[static_cast<std::size_t>(layer)].get();
            // FFN.
            gemm_(true, false, h, f, n, d_out_.get(), h, saved.h.get(), f, 0.0f, grad(layer, TensorKind::w_down), f);
            on_ready(slot++);
            gemm_(false, false, n, f, h, d_out_.get(), h, param(layer, TensorKind::w_down), f, 0.0f, dh_.get(), f);
            cuda::swiglu_backward(saved.gate_up.get(), dh_.get(), d_gate_up_.get(), n, f, s);
            gemm_(true, false, 2 * f, h, n, d_gate_up_.get(), 2 * f, saved.n2.get(), h, 0.0f, grad(layer, TensorKind::w_gate_up), h);
            on_ready(slot++);
            gemm_(false, false, n, h, 2 * f, d_gate_up_.get(), 2 * f, param(layer, TensorKind::w_gate_up), h, 0.0f, dn_.get(), h);
            SHAKEDOWN_CUDA(cudaMemcpyAsync(dx2_.get(), d_out_.get(), dx2_.bytes(), cudaMemcpyDeviceToDevice, s));
            norm_backward(saved.x2.get(), saved.rstd2.get(), layer, TensorKind::norm_ffn, dn_.get(), dx2_.get());
            on_ready(slot++);
            // Attention.
            gemm_(true, false, h, a, n, dx2_.get(), h, saved.attention.get(), a, 0.0f, grad(layer, TensorKind::w_out), a);
            on_ready(slot++);
            gemm_(false, false, n, a, h, dx2_.get(), h, param(layer, TensorKind::w_out), a, 0.0f, d_attention_.get(), a);
            attention_backward(saved);
            gemm_(true, false, w, h, n, d_qkv_.get(), w, saved.n1.get(), h, 0.0f, grad(layer, TensorKind::w_qkv), h);
            on_ready(slot++);
            gemm_(false, false, n, h, w, d_qkv_.get(), w, param(layer, TensorKind::w_qkv), h, 0.0f, dn_.get(), h);
            SHAKEDOWN_CUDA(cudaMemcpyAsync(d_in_.get(), dx2_.get(), d_in_.bytes(), cudaMemcpyDeviceToDevice, s));
            norm_backward(x, saved.rstd1.get(), layer, TensorKind::norm_attention, dn_.get(), d_in_.get());
            on_ready(slot++);
            std::swap(d_out_, d_in_);
        }
    }

    void norm_backward(const bf16* x, const float* rstd, std::int64_t layer, TensorKind kind, const bf16* dy, bf16* dx) {
        const cudaStream_t s = compute_.get();
        const std::int64_t h = shape_.layer.hidden;
        SHAKEDOWN_CUDA(cudaMemsetAsync(d_gain_.get(), 0, d_gain_.bytes(), s));
        cuda::rmsnorm_backward(x, rstd, param(layer, kind), dy, dx, d_gain_.get(), shape_.tokens(), h, s);
        cuda::to_bf16(d_gain_.get(), grad(layer, kind), static_cast<std::size_t>(h), s);
    }

    // Strided-batched cuBLAS over the query heads of one key/value head (their K or V is the same
    // matrix: stride 0), row-major as RowMajorGemm maps it.
    void batched(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const void* a, cudaDataType a_type,
                 std::int64_t lda, std::int64_t stride_a, const void* b, std::int64_t ldb, std::int64_t stride_b, float beta,
                 void* c, cudaDataType c_type, std::int64_t ldc, std::int64_t stride_c, std::int64_t count) {
        const float alpha = 1.0f;
        SHAKEDOWN_CUBLAS(cublasGemmStridedBatchedEx(
            blas_.get(), tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m),
            static_cast<int>(k), &alpha, b, CUDA_R_16BF, static_cast<int>(ldb), stride_b, a, a_type, static_cast<int>(lda),
            stride_a, &beta, c, c_type, static_cast<int>(ldc), stride_c, static_cast<int>(count), CUBLAS_COMPUTE_32F,
            CUBLAS_GEMM_DEFAULT));
    }

    void attention_forward(LayerActivations& saved) {
        if (cudnn_) {
            cudnn_->forward(saved.qkv.get(), saved.attention.get(), saved.stats.get());
            return;
        }
        bind_blas();
        const LayerShape& l = shape_.layer;
        const std::int64_t s = shape_.sequence, d = l.head_dim(), w = l.qkv_width(), group = l.heads / l.kv_heads;
        const std::int64_t out_width = l.heads * d;
        const float scale = 1.0f / std::sqrt(static_cast<float>(d));
        for (std::int64_t b = 0; b < shape_.micro_batch; ++b)
            for (std::int64_t kv = 0; kv < l.kv_heads; ++kv) {
                const bf16* q = saved.qkv.get() + b * s * w + kv * group * d;
                const bf16* k = saved.qkv.get() + b * s * w + (l.heads + kv) * d;
                const bf16* v = saved.qkv.get() + b * s * w + (l.heads + l.kv_heads + kv) * d;
                bf16* p = saved.probabilities.get() + (b * l.heads + kv * group) * s * s;
                batched(false, true, s, s, d, q, CUDA_R_16BF, w, d, k, w, 0, 0.0f, scores_.get(), CUDA_R_32F, s, s * s, group);
                cuda::causal_softmax(scores_.get(), p, group, s, scale, compute_.get());
                batched(false, false, s, d, s, p, CUDA_R_16BF, s, s * s, v, w, 0, 0.0f,
                        saved.attention.get() + b * s * out_width + kv * group * d, CUDA_R_16BF, out_width, d, group);
            }
    }

    void attention_backward(LayerActivations& saved) {
        if (cudnn_) {
            cudnn_->backward(saved.qkv.get(), saved.attention.get(), d_attention_.get(), saved.stats.get(), d_qkv_.get());
            return;
        }
        bind_blas();
        const LayerShape& l = shape_.layer;
        const std::int64_t s = shape_.sequence, d = l.head_dim(), w = l.qkv_width(), group = l.heads / l.kv_heads;
        const std::int64_t out_width = l.heads * d;
        const float scale = 1.0f / std::sqrt(static_cast<float>(d));
        for (std::int64_t b = 0; b < shape_.micro_batch; ++b)
            for (std::int64_t kv = 0; kv < l.kv_heads; ++kv) {
                const std::int64_t base = b * s * w;
                const bf16* q = saved.qkv.get() + base + kv * group * d;
                const bf16* k = saved.qkv.get() + base + (l.heads + kv) * d;
                const bf16* v = saved.qkv.get() + base + (l.heads + l.kv_heads + kv) * d;
                const bf16* p = saved.probabilities.get() + (b * l.heads + kv * group) * s * s;
                const bf16* d_o = d_attention_.get() + b * s * out_width + kv * group * d;
                bf16* dq = d_qkv_.get() + base + kv * group * d;
                bf16* dk = d_qkv_.get() + base + (l.heads + kv) * d;
                bf16* dv = d_qkv_.get() + base + (l.heads + l.kv_heads + kv) * d;
                // dP = dO V^T for the group's heads, then dS (bf16) from the saved probabilities.
                batched(false, true, s, s, d, d_o, CUDA_R_16BF, out_width, d, v, w, 0, 0.0f, scores_.get(), CUDA_R_32F, s,
                        s * s, group);
                cuda::causal_softmax_backward(p, scores_.get(), d_scores_bf16_.get(), group, s, scale, compute_.get());
                // dQ = dS K for each head at once; dK and dV sum over the group's heads one at a time.
                batched(false, false, s, d, s, d_scores_bf16_.get(), CUDA_R_16BF, s, s * s, k, w, 0, 0.0f, dq, CUDA_R_16BF, w, d,
                        group);
                for (std::int64_t head = 0; head < group; ++head) {
                    const float beta = head == 0 ? 0.0f : 1.0f;
                    batched(true, false, s, d, s, d_scores_bf16_.get() + head * s * s, CUDA_R_16BF, s, 0, q + head * d, w, 0,
                            beta, dk, CUDA_R_16BF, w, 0, 1);
                    batched(true, false, s, d, s, p + head * s * s, CUDA_R_16BF, s, 0, d_o + head * d, out_width, 0, beta, dv,
                            CUDA_R_16BF, w, 0, 1);
                }
            }
    }

    void bind_blas() {
        if (blas_bound_) return;
        SHAKEDOWN_CUBLAS(cublasSetStream(blas_.get(), compute_.get()));
        blas_bound_ = true;
    }

    StepShape shape_;
    std::vector<TensorSlot> layout_;
    int device_ = 0;
    gpu::DeviceSelection selection_;
    CudaStream compute_;
    CudaStream comm_stream_;
    RowMajorGemm gemm_;
    gpu::CublasHandle blas_;
    bool blas_bound_ = false;
    std::unique_ptr<CudnnAttention> cudnn_;
    std::string attention_note_;
    DeviceBuffer<bf16> parameters_, gradients_, output_gradient_;
    std::vector<DeviceBuffer<bf16>> stream_values_;  // each layer's input; the last is the stack's output
    std::vector<LayerActivations> saved_;
    DeviceBuffer<bf16> d_out_, d_in_, dx2_, dn_, dh_, d_gate_up_, d_attention_, d_qkv_, d_scores_bf16_;
    DeviceBuffer<float> d_gain_, scores_;
    DeviceBuffer<double> sums_;
    DeviceBuffer<unsigned long long> hash_;
    MPI_Comm reduce_comm_ = MPI_COMM_NULL;
    std::unique_ptr<gpu::NcclCommunicator> nccl_;
    CudaEvent start_, compute_end_, comm_end_;
    std::vector<std::unique_ptr<CudaEvent>> bucket_events_;
};

}  // namespace

std::unique_ptr<TrainEngine> make_gpu_engine(const StepShape& shape, std::uint64_t rank_seed, int gpu,
                                             const std::string& attention) {
    return std::make_unique<GpuEngine>(shape, rank_seed, gpu, attention);
}

bool gpu_engine_built() { return true; }

}  // namespace shakedown::kernels::train
