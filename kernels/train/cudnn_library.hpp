// cuDNN 9 loaded at run time. The GPU hosts carry cuDNN only inside PyTorch's wheels, never in
// the system's library path, so no shakedown binary links it: the attention wrapper reaches
// the handful of entry points it needs through this table, and a node without cuDNN is an
// answer ("libcudnn.so.9 not found: ..."), not a failed start.
#pragma once

#include "gpu/gpu_error.hpp"
#include "telemetry/dynamic_library.hpp"

#include <cudnn_graph.h>

#include <cstddef>
#include <memory>
#include <string>

namespace shakedown::kernels::train {

// A cuDNN status other than success. A GpuError like the CUDA and cuBLAS ones, so the test
// runner records it the same way; its own type lets CudnnAttention::create tell "this cuDNN
// cannot build the graph" (a why-not) apart from a CUDA failure (thrown on).
class CudnnError : public gpu::GpuError {
public:
    using gpu::GpuError::GpuError;
};

// The entry points, typed from the header's own declarations so a changed signature fails to
// compile rather than misbehaving at run time.
struct CudnnApi {
    decltype(&cudnnGetVersion) get_version = nullptr;
    decltype(&cudnnGetErrorString) error_string = nullptr;
    decltype(&cudnnGetLastErrorString) last_error_string = nullptr;  // optional: absent before 9.0
    decltype(&cudnnCreate) create = nullptr;
    decltype(&cudnnDestroy) destroy = nullptr;
    decltype(&cudnnSetStream) set_stream = nullptr;
    decltype(&cudnnBackendCreateDescriptor) create_descriptor = nullptr;
    decltype(&cudnnBackendDestroyDescriptor) destroy_descriptor = nullptr;
    decltype(&cudnnBackendFinalize) finalize = nullptr;
    decltype(&cudnnBackendSetAttribute) set_attribute = nullptr;
    decltype(&cudnnBackendGetAttribute) get_attribute = nullptr;
    decltype(&cudnnBackendExecute) execute = nullptr;
};

class CudnnLibrary {
public:
    // The library named by SHAKEDOWN_CUDNN_LIBRARY when set (a path into a PyTorch wheel, say),
    // else libcudnn.so.9, else libcudnn.so; nullptr with `why_not` (one line) when none loads,
    // an entry point is missing or the version is not 9.x.
    static std::unique_ptr<CudnnLibrary> load(std::string& why_not);

    const CudnnApi& api() const { return api_; }
    std::size_t version() const { return version_; }  // 91300 for 9.13.0
    std::string version_text() const;                 // "9.13.0"
    std::string path() const { return library_.path(); }

    // cuDNN's own words for `status`, with its last error message where it keeps one (that
    // message says which attribute or engine condition refused).
    std::string describe(cudnnStatus_t status) const;

    // Throws CudnnError naming `call` when `status` is not success.
    void check(cudnnStatus_t status, const std::string& call, const char* file, int line) const;

private:
    CudnnLibrary(DynamicLibrary library, const CudnnApi& api, std::size_t version)
        : library_(std::move(library)), api_(api), version_(version) {}

    DynamicLibrary library_;
    CudnnApi api_;
    std::size_t version_ = 0;
};

// A cuDNN handle bound to one stream, destroyed before the library it came from.
class CudnnHandle {
public:
    CudnnHandle(const CudnnLibrary& library, cudaStream_t stream);
    ~CudnnHandle();
    CudnnHandle(const CudnnHandle&) = delete;
    CudnnHandle& operator=(const CudnnHandle&) = delete;
    cudnnHandle_t get() const { return handle_; }

private:
    const CudnnLibrary& library_;
    cudnnHandle_t handle_ = nullptr;
};

}  // namespace shakedown::kernels::train

#define SHAKEDOWN_CUDNN(library, expression, call) (library).check((expression), (call), __FILE__, __LINE__)
