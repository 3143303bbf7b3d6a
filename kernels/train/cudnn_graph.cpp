#include "kernels/train/cudnn_graph.hpp"

#include <utility>

namespace shakedown::kernels::train::cudnn {

namespace {

std::string attribute_call(const char* function, cudnnBackendAttributeName_t name, const std::string& label) {
    return std::string(function) + "(attribute " + std::to_string(static_cast<int>(name)) + ") on " + label;
}

// Names for the modes the attention graphs use, so an error says "pointwise EXP -> tensor 'E'".
std::string pointwise_name(cudnnPointwiseMode_t mode) {
    switch (mode) {
    case CUDNN_POINTWISE_ADD: return "ADD";
    case CUDNN_POINTWISE_SUB: return "SUB";
    case CUDNN_POINTWISE_MUL: return "MUL";
    case CUDNN_POINTWISE_DIV: return "DIV";
    case CUDNN_POINTWISE_EXP: return "EXP";
    case CUDNN_POINTWISE_LOG: return "LOG";
    case CUDNN_POINTWISE_IDENTITY: return "IDENTITY";
    case CUDNN_POINTWISE_CMP_GE: return "CMP_GE";
    case CUDNN_POINTWISE_BINARY_SELECT: return "BINARY_SELECT";
    case CUDNN_POINTWISE_GEN_INDEX: return "GEN_INDEX";
    default: return "mode " + std::to_string(static_cast<int>(mode));
    }
}

std::string reduction_name(cudnnReduceTensorOp_t op) {
    switch (op) {
    case CUDNN_REDUCE_TENSOR_ADD: return "ADD";
    case CUDNN_REDUCE_TENSOR_MAX: return "MAX";
    default: return "operator " + std::to_string(static_cast<int>(op));
    }
}

const char* heuristics_mode_name(cudnnBackendHeurMode_t mode) {
    switch (mode) {
    case CUDNN_HEUR_MODE_A: return "A";
    case CUDNN_HEUR_MODE_B: return "B";
    case CUDNN_HEUR_MODE_FALLBACK: return "fallback";
    default: return "instant";
    }
}

// The engine's global index behind a configuration (what description() reports); -1 when
// this cuDNN will not say, which is no reason to refuse a plan that finalized.
std::int64_t engine_index(const Descriptor& config) {
    const CudnnLibrary& library = config.library();
    Descriptor engine(library, CUDNN_BACKEND_ENGINE_DESCRIPTOR, "engine of " + config.label());
    cudnnBackendDescriptor_t raw = engine.get();
    std::int64_t returned = 0;
    if (library.api().get_attribute(config.get(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &returned,
                                    &raw) != CUDNN_STATUS_SUCCESS ||
        returned != 1)
        return -1;
    std::int64_t index = -1;
    if (library.api().get_attribute(engine.get(), CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &returned, &index) !=
        CUDNN_STATUS_SUCCESS)
        return -1;
    return index;
}

}  // namespace

// ---------------------------------------------------------------- Descriptor

Descriptor::Descriptor(const CudnnLibrary& library, cudnnBackendDescriptorType_t type, std::string label)
    : library_(&library), label_(std::move(label)) {
    SHAKEDOWN_CUDNN(library, library.api().create_descriptor(type, &descriptor_),
                    "cudnnBackendCreateDescriptor for " + label_);
}

Descriptor::~Descriptor() {
    if (descriptor_ != nullptr) library_->api().destroy_descriptor(descriptor_);
}

Descriptor::Descriptor(Descriptor&& other) noexcept
    : library_(other.library_), descriptor_(std::exchange(other.descriptor_, nullptr)), label_(std::move(other.label_)) {}

Descriptor& Descriptor::operator=(Descriptor&& other) noexcept {
    std::swap(library_, other.library_);
    std::swap(descriptor_, other.descriptor_);
    std::swap(label_, other.label_);
    return *this;
}

void Descriptor::set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, std::int64_t count,
                     const void* values) {
    SHAKEDOWN_CUDNN(*library_, library_->api().set_attribute(descriptor_, name, type, count, values),
                    attribute_call("cudnnBackendSetAttribute", name, label_));
}

void Descriptor::finalize() {
    SHAKEDOWN_CUDNN(*library_, library_->api().finalize(descriptor_), "cudnnBackendFinalize on " + label_);
}

cudnnStatus_t Descriptor::try_finalize() { return library_->api().finalize(descriptor_); }

std::int64_t Descriptor::get_int64(cudnnBackendAttributeName_t name) const {
    std::int64_t value = 0, returned = 0;
    SHAKEDOWN_CUDNN(*library_, library_->api().get_attribute(descriptor_, name, CUDNN_TYPE_INT64, 1, &returned, &value),
                    attribute_call("cudnnBackendGetAttribute", name, label_));
    return value;
}

// ---------------------------------------------------------------- GraphBuilder

TensorRef GraphBuilder::tensor(const std::string& label, const Dims& dims, const Dims& strides, cudnnDataType_t type,
                               TensorKind kind, std::int64_t uid) {
    if (uid == 0) uid = next_uid_++;
    Descriptor tensor(library_, CUDNN_BACKEND_TENSOR_DESCRIPTOR, name_ + " tensor '" + label + "'");
    tensor.set_data_type(CUDNN_ATTR_TENSOR_DATA_TYPE, type);
    tensor.set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, static_cast<std::int64_t>(dims.size()), dims.data());
    tensor.set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, static_cast<std::int64_t>(strides.size()), strides.data());
    tensor.set_int64(CUDNN_ATTR_TENSOR_UNIQUE_ID, uid);
    // Every pointer the wrapper passes is at least 16-byte aligned (head offsets are multiples
    // of 64 bf16 elements); the fused kernels load 16 bytes at a time.
    tensor.set_int64(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, 16);
    const bool is_virtual = kind == TensorKind::intermediate;
    const bool by_value = kind == TensorKind::scalar;
    tensor.set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &is_virtual);
    if (by_value) tensor.set(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &by_value);
    tensor.finalize();
    tensors_.push_back(std::move(tensor));
    return TensorRef{uid, tensors_.size() - 1};
}

TensorRef GraphBuilder::scalar(const std::string& label, std::int64_t uid) {
    return tensor(label, Dims{1, 1, 1, 1}, Dims{1, 1, 1, 1}, CUDNN_DATA_FLOAT, TensorKind::scalar, uid);
}

void GraphBuilder::pointwise(cudnnPointwiseMode_t mode, cudnnDataType_t precision, TensorRef x, TensorRef y,
                             std::optional<TensorRef> b, std::optional<TensorRef> t, std::optional<std::int64_t> axis) {
    const std::string label = name_ + " pointwise " + pointwise_name(mode) + " -> " + at(y).label().substr(name_.size() + 1);
    Descriptor setting(library_, CUDNN_BACKEND_POINTWISE_DESCRIPTOR, label + " (setting)");
    setting.set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode);
    setting.set_data_type(CUDNN_ATTR_POINTWISE_MATH_PREC, precision);
    if (axis) setting.set_int64(CUDNN_ATTR_POINTWISE_AXIS, *axis);
    setting.finalize();

    Descriptor operation(library_, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, label);
    operation.set_descriptor(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, setting);
    operation.set_descriptor(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, at(x));
    if (b) operation.set_descriptor(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, at(*b));
    if (t) operation.set_descriptor(CUDNN_ATTR_OPERATION_POINTWISE_TDESC, at(*t));
    operation.set_descriptor(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, at(y));
    // y = op(alpha1 x, alpha2 b): both 1, as the frontend sets them.
    const float one = 1.0f;
    operation.set(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_FLOAT, 1, &one);
    operation.set(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, CUDNN_TYPE_FLOAT, 1, &one);
    operation.finalize();
    operation_settings_.push_back(std::move(setting));
    operations_.push_back(std::move(operation));
}

void GraphBuilder::reduction(cudnnReduceTensorOp_t op, TensorRef x, TensorRef y) {
    const std::string label = name_ + " reduction " + reduction_name(op) + " -> " + at(y).label().substr(name_.size() + 1);
    Descriptor setting(library_, CUDNN_BACKEND_REDUCTION_DESCRIPTOR, label + " (setting)");
    setting.set_data_type(CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_DATA_FLOAT);
    setting.set(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &op);
    setting.finalize();

    Descriptor operation(library_, CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, label);
    operation.set_descriptor(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, at(x));
    operation.set_descriptor(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, at(y));
    operation.set_descriptor(CUDNN_ATTR_OPERATION_REDUCTION_DESC, setting);
    operation.finalize();
    operation_settings_.push_back(std::move(setting));
    operations_.push_back(std::move(operation));
}

void GraphBuilder::matmul(TensorRef a, TensorRef b, TensorRef c) {
    const std::string label = name_ + " matmul -> " + at(c).label().substr(name_.size() + 1);
    Descriptor setting(library_, CUDNN_BACKEND_MATMUL_DESCRIPTOR, label + " (setting)");
    setting.set_data_type(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_DATA_FLOAT);
    setting.finalize();

    Descriptor operation(library_, CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, label);
    operation.set_descriptor(CUDNN_ATTR_OPERATION_MATMUL_ADESC, at(a));
    operation.set_descriptor(CUDNN_ATTR_OPERATION_MATMUL_BDESC, at(b));
    operation.set_descriptor(CUDNN_ATTR_OPERATION_MATMUL_CDESC, at(c));
    operation.set_descriptor(CUDNN_ATTR_OPERATION_MATMUL_DESC, setting);
    operation.finalize();
    operation_settings_.push_back(std::move(setting));
    operations_.push_back(std::move(operation));
}

void GraphBuilder::reshape(TensorRef x, TensorRef y) {
    Descriptor operation(library_, CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR,
                         name_ + " reshape -> " + at(y).label().substr(name_.size() + 1));
    operation.set_descriptor(CUDNN_ATTR_OPERATION_RESHAPE_XDESC, at(x));
    operation.set_descriptor(CUDNN_ATTR_OPERATION_RESHAPE_YDESC, at(y));
    operation.finalize();
    operations_.push_back(std::move(operation));
}

void GraphBuilder::finalize(cudnnHandle_t handle) {
    graph_ = std::make_unique<Descriptor>(library_, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, name_ + " operation graph");
    std::vector<cudnnBackendDescriptor_t> raw;
    raw.reserve(operations_.size());
    for (const Descriptor& operation : operations_) raw.push_back(operation.get());
    graph_->set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<std::int64_t>(raw.size()),
                raw.data());
    graph_->set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
    graph_->finalize();
}

// ---------------------------------------------------------------- ExecutionPlan

std::optional<ExecutionPlan> ExecutionPlan::choose(const GraphBuilder& graph, cudnnHandle_t handle, std::string& why_not) {
    const CudnnLibrary& library = graph.library();
    std::string first_refusal;
    int tried = 0;
    auto refused = [&](const std::string& what, cudnnStatus_t status) {
        if (first_refusal.empty()) first_refusal = what + ": " + library.describe(status);
    };

    for (cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_B, CUDNN_HEUR_MODE_FALLBACK}) {
        const std::string where = graph.name() + " heuristics mode " + heuristics_mode_name(mode);
        Descriptor heuristics(library, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, where);
        heuristics.set_descriptor(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph.operation_graph());
        heuristics.set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
        if (const cudnnStatus_t status = heuristics.try_finalize(); status != CUDNN_STATUS_SUCCESS) {
            refused(where, status);
            continue;
        }
        // Asking for zero results returns how many there are; cuDNN then fills descriptors we create.
        std::int64_t count = 0;
        SHAKEDOWN_CUDNN(library,
                        library.api().get_attribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                                    CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr),
                        "cudnnBackendGetAttribute(CUDNN_ATTR_ENGINEHEUR_RESULTS count) on " + where);
        if (count <= 0) continue;
        std::vector<Descriptor> configs;
        std::vector<cudnnBackendDescriptor_t> raw;
        for (std::int64_t i = 0; i < count; ++i) {
            configs.emplace_back(library, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, where + " configuration " + std::to_string(i));
            raw.push_back(configs.back().get());
        }
        std::int64_t returned = 0;
        SHAKEDOWN_CUDNN(library,
                        library.api().get_attribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                                    CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &returned, raw.data()),
                        "cudnnBackendGetAttribute(CUDNN_ATTR_ENGINEHEUR_RESULTS) on " + where);

        for (std::int64_t i = 0; i < returned && i < count; ++i) {
            Descriptor plan(library, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, graph.name() + " execution plan");
            plan.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
            plan.set_descriptor(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, configs[i]);
            ++tried;
            if (const cudnnStatus_t status = plan.try_finalize(); status != CUDNN_STATUS_SUCCESS) {
                refused(configs[i].label(), status);
                continue;
            }
            const std::int64_t engine = engine_index(configs[i]);
            const std::int64_t workspace = plan.get_int64(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE);
            return ExecutionPlan(std::move(configs[i]), std::move(plan), engine, workspace);
        }
    }
    why_not = "cuDNN " + library.version_text() + " has no engine for the " + graph.name() + " graph (" +
              std::to_string(tried) +
              " configurations tried): " + (first_refusal.empty() ? std::string("heuristics offered none") : first_refusal);
    return std::nullopt;
}

void ExecutionPlan::execute(cudnnHandle_t handle, const std::vector<std::int64_t>& uids, const std::vector<void*>& pointers,
                            void* workspace) const {
    const CudnnLibrary& library = plan_.library();
    Descriptor pack(library, CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, plan_.label() + " variant pack");
    pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, static_cast<std::int64_t>(uids.size()), uids.data());
    pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, static_cast<std::int64_t>(pointers.size()),
             pointers.data());
    pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace);
    pack.finalize();
    SHAKEDOWN_CUDNN(library, library.api().execute(handle, plan_.get(), pack.get()),
                    "cudnnBackendExecute of " + plan_.label());
}

}  // namespace shakedown::kernels::train::cudnn
