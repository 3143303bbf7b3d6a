// The cuDNN backend (graph) API in small pieces: an owner for every backend descriptor, a
// graph builder that names each tensor and operation (so an error says which one cuDNN refused),
// and an execution plan picked from cuDNN's heuristics. What the attention graphs contain is
// in cudnn_attention.cpp; this file knows nothing about attention.
#pragma once

#include "kernels/train/cudnn_library.hpp"

#include <cudnn_graph.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::kernels::train::cudnn {

// One backend descriptor, destroyed with the object. `label` ("tensor Q", "pointwise EXP")
// names it in error messages.
class Descriptor {
public:
    Descriptor(const CudnnLibrary& library, cudnnBackendDescriptorType_t type, std::string label);
    ~Descriptor();
    Descriptor(Descriptor&& other) noexcept;
    Descriptor& operator=(Descriptor&& other) noexcept;
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;

    cudnnBackendDescriptor_t get() const { return descriptor_; }
    const std::string& label() const { return label_; }
    const CudnnLibrary& library() const { return *library_; }

    void set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, std::int64_t count, const void* values);
    void set_int64(cudnnBackendAttributeName_t name, std::int64_t value) { set(name, CUDNN_TYPE_INT64, 1, &value); }
    void set_data_type(cudnnBackendAttributeName_t name, cudnnDataType_t value) {
        set(name, CUDNN_TYPE_DATA_TYPE, 1, &value);
    }
    void set_descriptor(cudnnBackendAttributeName_t name, const Descriptor& value) {
        cudnnBackendDescriptor_t raw = value.get();
        set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &raw);
    }
    void finalize();
    // The status of finalizing, for descriptors whose refusal is an answer (a plan for an engine
    // configuration that does not fit).
    cudnnStatus_t try_finalize();

    // Reads one int64 attribute (a plan's workspace size, an engine's index).
    std::int64_t get_int64(cudnnBackendAttributeName_t name) const;

private:
    const CudnnLibrary* library_;
    cudnnBackendDescriptor_t descriptor_ = nullptr;
    std::string label_;
};

using Dims = std::array<std::int64_t, 4>;

// What a tensor is to the graph: memory the caller passes at execution, an intermediate that
// lives only inside the fused kernel, or a host scalar passed by value.
enum class TensorKind { memory, intermediate, scalar };

struct TensorRef {
    std::int64_t uid = 0;
    std::size_t index = 0;  // into the builder's tensors
};

// The descriptors of one operation graph, kept alive with the plan built from it.
class GraphBuilder {
public:
    GraphBuilder(const CudnnLibrary& library, std::string name) : library_(library), name_(std::move(name)) {}

    // A 4-D tensor; `uid` 0 takes the next free id above every caller-chosen one.
    TensorRef tensor(const std::string& label, const Dims& dims, const Dims& strides, cudnnDataType_t type, TensorKind kind,
                     std::int64_t uid = 0);
    // A [1,1,1,1] fp32 host scalar passed by value at execution.
    TensorRef scalar(const std::string& label, std::int64_t uid);

    // y = mode(x [, b [, t]]) computed in `precision`; `axis` for GEN_INDEX only.
    void pointwise(cudnnPointwiseMode_t mode, cudnnDataType_t precision, TensorRef x, TensorRef y,
                   std::optional<TensorRef> b = std::nullopt, std::optional<TensorRef> t = std::nullopt,
                   std::optional<std::int64_t> axis = std::nullopt);
    // y = op over the dimensions where y is 1 (or smaller, for a head-group sum), in fp32.
    void reduction(cudnnReduceTensorOp_t op, TensorRef x, TensorRef y);
    // c = a b over the last two dimensions, batched over the first two (broadcast where b has
    // fewer heads), accumulated in fp32.
    void matmul(TensorRef a, TensorRef b, TensorRef c);
    // y is x seen with other dimensions and strides (no data moves).
    void reshape(TensorRef x, TensorRef y);

    // Finalizes the operation graph on `handle`.
    void finalize(cudnnHandle_t handle);
    const Descriptor& operation_graph() const { return *graph_; }
    const std::string& name() const { return name_; }
    const CudnnLibrary& library() const { return library_; }

private:
    const Descriptor& at(TensorRef ref) const { return tensors_.at(ref.index); }

    const CudnnLibrary& library_;
    std::string name_;
    std::vector<Descriptor> tensors_;
    std::vector<Descriptor> operation_settings_;  // pointwise, reduction, matmul descriptors the ops point at
    std::vector<Descriptor> operations_;
    std::unique_ptr<Descriptor> graph_;
    std::int64_t next_uid_ = 1000;
};

// A finalized execution plan for one graph and the engine configuration it came from.
class ExecutionPlan {
public:
    // The first engine configuration that finalizes, from heuristics mode A, then B, then the
    // fallback list; std::nullopt with `why_not` (one line, with cuDNN's reason for the first
    // refusal) when none does.
    static std::optional<ExecutionPlan> choose(const GraphBuilder& graph, cudnnHandle_t handle, std::string& why_not);

    std::int64_t engine() const { return engine_; }
    std::int64_t workspace_bytes() const { return workspace_bytes_; }

    // Runs the plan on the handle's stream: `pointers[i]` is the device (or, for a scalar,
    // host) address of tensor `uids[i]`.
    void execute(cudnnHandle_t handle, const std::vector<std::int64_t>& uids, const std::vector<void*>& pointers,
                 void* workspace) const;

private:
    ExecutionPlan(Descriptor config, Descriptor plan, std::int64_t engine, std::int64_t workspace_bytes)
        : config_(std::move(config)), plan_(std::move(plan)), engine_(engine), workspace_bytes_(workspace_bytes) {}

    Descriptor config_;
    Descriptor plan_;
    std::int64_t engine_ = -1;
    std::int64_t workspace_bytes_ = 0;
};

}  // namespace shakedown::kernels::train::cudnn
