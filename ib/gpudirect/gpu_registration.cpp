#include "ib/gpudirect/gpu_registration.hpp"

#include <cuda.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <fmt/format.h>

#include <filesystem>
#include <type_traits>

namespace shakedown::ib {
namespace {

// Driver API entry points fetched through the runtime, so nothing links libcuda.so.1 and the
// binaries still load on machines without a GPU driver (CI).
template <typename Function>
Function* driver_entry(const char* symbol) {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion(symbol, &function, 12000, cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
        return nullptr;
    return reinterpret_cast<Function*>(function);
}

struct DriverCalls {
    decltype(&cuDeviceGet) device_get = driver_entry<std::remove_pointer_t<decltype(&cuDeviceGet)>>("cuDeviceGet");
    decltype(&cuDeviceGetAttribute) device_attribute =
        driver_entry<std::remove_pointer_t<decltype(&cuDeviceGetAttribute)>>("cuDeviceGetAttribute");
    decltype(&cuMemGetHandleForAddressRange) range_handle =
        driver_entry<std::remove_pointer_t<decltype(&cuMemGetHandleForAddressRange)>>("cuMemGetHandleForAddressRange");
    decltype(&cuGetErrorString) error_string = driver_entry<std::remove_pointer_t<decltype(&cuGetErrorString)>>("cuGetErrorString");

    std::string error(CUresult result) const {
        const char* text = nullptr;
        if (error_string != nullptr) error_string(result, &text);
        return text != nullptr ? text : fmt::format("CUresult {}", static_cast<int>(result));
    }
};

// The dma-buf file descriptor the CUDA driver exports (closed when done).
class DmaBufFd {
public:
    explicit DmaBufFd(int fd) : fd_(fd) {}
    ~DmaBufFd() {
        if (fd_ >= 0) ::close(fd_);
    }
    DmaBufFd(const DmaBufFd&) = delete;
    DmaBufFd& operator=(const DmaBufFd&) = delete;
    int get() const { return fd_; }

private:
    int fd_;
};

std::unique_ptr<MemoryRegion> try_dmabuf(ProtectionDomain& pd, int cuda_device, void* pointer, std::size_t bytes,
                                         std::string& why_not) {
    const DriverCalls driver;
    if (driver.device_get == nullptr || driver.device_attribute == nullptr || driver.range_handle == nullptr) {
        why_not = "the CUDA driver has no cuMemGetHandleForAddressRange (driver older than CUDA 11.7)";
        return nullptr;
    }
    CUdevice device = 0;
    int supported = 0;
    if (const auto r = driver.device_get(&device, cuda_device); r != CUDA_SUCCESS) {
        why_not = "cuDeviceGet: " + driver.error(r);
        return nullptr;
    }
    if (const auto r = driver.device_attribute(&supported, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, device); r != CUDA_SUCCESS) {
        why_not = "cuDeviceGetAttribute(DMA_BUF_SUPPORTED): " + driver.error(r);
        return nullptr;
    }
    if (supported == 0) {
        why_not = "the GPU driver does not support dma-buf (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 0; needs the open "
                  "kernel modules and Linux >= 5.12)";
        return nullptr;
    }
    int fd = -1;
    if (const auto r = driver.range_handle(&fd, reinterpret_cast<CUdeviceptr>(pointer), bytes,
                                                     CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
        r != CUDA_SUCCESS) {
        why_not = "cuMemGetHandleForAddressRange: " + driver.error(r);
        return nullptr;
    }
    const DmaBufFd owned(fd);
    try {
        return pd.register_dmabuf(owned.get(), 0, bytes, reinterpret_cast<std::uint64_t>(pointer));
    } catch (const VerbsError& error) {
        why_not = error.what();  // e.g. the HCA driver or rdma-core is too old for dma-buf
        return nullptr;
    }
}

}  // namespace

std::string GpuRegistration::why_none() const {
    return fmt::format("GPU memory cannot be registered with the HCA: dma-buf: {}; peer memory: {}", dmabuf_error,
                       peer_memory_error);
}

GpuRegistration register_gpu_memory(ProtectionDomain& pd, int cuda_device, void* device_pointer, std::size_t bytes) {
    GpuRegistration registration;
    registration.region = try_dmabuf(pd, cuda_device, device_pointer, bytes, registration.dmabuf_error);
    if (registration.region) {
        registration.path = "dma-buf";
        return registration;
    }
    try {
        registration.region = pd.register_memory(device_pointer, bytes);
        registration.path = "peer-memory (nvidia-peermem)";
    } catch (const VerbsError& error) {
        const bool module_loaded = std::filesystem::exists("/sys/module/nvidia_peermem") ||
                                   std::filesystem::exists("/sys/module/nv_peer_mem");
        registration.peer_memory_error =
            fmt::format("{} ({})", error.what(),
                        module_loaded ? "nvidia-peermem is loaded" : "the nvidia-peermem module is not loaded");
    }
    return registration;
}

}  // namespace shakedown::ib
