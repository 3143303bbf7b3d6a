#include "kernels/train/cudnn_library.hpp"

#include "core/session.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <vector>

namespace shakedown::kernels::train {

namespace {

// Who must act on a status: a cuDNN that does not fit this GPU, driver or CUDA runtime, or
// whose sub-libraries are missing, is the installation's to fix; everything else is software.
Cause cudnn_error_cause(cudnnStatus_t status) {
    switch (status) {
    case CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH:
    case CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED:
    case CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER:
    case CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART:
    case CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH:
    case CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING:
    case CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE: return Cause::configuration;
    default: return Cause::software;
    }
}

template <typename Function>
bool bind(const DynamicLibrary& library, const char* name, Function& slot, std::string& missing) {
    slot = library.function<Function>(name);
    if (slot == nullptr) missing += missing.empty() ? name : std::string(", ") + name;
    return slot != nullptr;
}

}  // namespace

std::unique_ptr<CudnnLibrary> CudnnLibrary::load(std::string& why_not) {
    std::vector<std::string> names;
    if (const char* chosen = std::getenv("SHAKEDOWN_CUDNN_LIBRARY"); chosen != nullptr && *chosen != '\0')
        names.emplace_back(chosen);
    names.emplace_back("libcudnn.so.9");
    names.emplace_back("libcudnn.so");

    std::optional<DynamicLibrary> library;
    std::string first_error;
    for (const std::string& name : names) {
        std::string error;
        library = DynamicLibrary::open(name, RTLD_NOW | RTLD_LOCAL, &error);
        if (library) break;
        // The first name's failure is the informative one: the later names are fallbacks.
        if (first_error.empty()) first_error = error;
    }
    if (!library) {
        why_not = names.front() + " not found: " + first_error;
        return nullptr;
    }

    CudnnApi api;
    std::string missing;
    bind(*library, "cudnnGetVersion", api.get_version, missing);
    bind(*library, "cudnnGetErrorString", api.error_string, missing);
    bind(*library, "cudnnCreate", api.create, missing);
    bind(*library, "cudnnDestroy", api.destroy, missing);
    bind(*library, "cudnnSetStream", api.set_stream, missing);
    bind(*library, "cudnnBackendCreateDescriptor", api.create_descriptor, missing);
    bind(*library, "cudnnBackendDestroyDescriptor", api.destroy_descriptor, missing);
    bind(*library, "cudnnBackendFinalize", api.finalize, missing);
    bind(*library, "cudnnBackendSetAttribute", api.set_attribute, missing);
    bind(*library, "cudnnBackendGetAttribute", api.get_attribute, missing);
    bind(*library, "cudnnBackendExecute", api.execute, missing);
    if (!missing.empty()) {
        why_not = library->path() + " lacks " + missing + " (not a cuDNN 9 library)";
        return nullptr;
    }
    api.last_error_string = library->function<decltype(&cudnnGetLastErrorString)>("cudnnGetLastErrorString");

    const std::size_t version = api.get_version();
    if (version / 10000 != 9) {
        why_not = library->path() + " is cuDNN " + std::to_string(version / 10000) + "." +
                  std::to_string(version / 100 % 100) + ", not 9.x";
        return nullptr;
    }
    return std::unique_ptr<CudnnLibrary>(new CudnnLibrary(std::move(*library), api, version));
}

std::string CudnnLibrary::version_text() const {
    return std::to_string(version_ / 10000) + "." + std::to_string(version_ / 100 % 100) + "." +
           std::to_string(version_ % 100);
}

std::string CudnnLibrary::describe(cudnnStatus_t status) const {
    std::string text = api_.error_string(status);
    if (api_.last_error_string != nullptr) {
        char detail[1024] = {};
        api_.last_error_string(detail, sizeof detail);
        if (detail[0] != '\0') text += std::string(": ") + detail;
    }
    return text;
}

void CudnnLibrary::check(cudnnStatus_t status, const std::string& call, const char* file, int line) const {
    if (status == CUDNN_STATUS_SUCCESS) return;
    // The same shape as the CUDA and cuBLAS errors (gpu/gpu_error.hpp), so a log reads alike.
    const Cause cause = cudnn_error_cause(status);
    std::string text = "cuDNN " + version_text() + " error '" + describe(status) + "' in " + call + " (" +
                       std::filesystem::path(file).filename().string() + ":" + std::to_string(line) + ", host " +
                       this_node_name() + ")";
    if (cause == Cause::configuration) text += ": this cuDNN does not fit the GPU, driver or CUDA runtime (" + path() + ")";
    throw CudnnError(text, cause);
}

CudnnHandle::CudnnHandle(const CudnnLibrary& library, cudaStream_t stream) : library_(library) {
    SHAKEDOWN_CUDNN(library_, library_.api().create(&handle_), "cudnnCreate");
    try {
        SHAKEDOWN_CUDNN(library_, library_.api().set_stream(handle_, stream), "cudnnSetStream");
    } catch (...) {
        library_.api().destroy(handle_);
        throw;
    }
}

CudnnHandle::~CudnnHandle() {
    if (handle_ != nullptr) library_.api().destroy(handle_);
}

}  // namespace shakedown::kernels::train
