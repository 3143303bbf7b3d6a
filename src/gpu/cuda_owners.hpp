// Owners of the CUDA objects tests use: device and page-locked host buffers, streams and
// events, and the current device. Released when they go out of scope, also when a test throws
// half-way.
#pragma once

#include "gpu/cuda_check.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <utility>

namespace shakedown::gpu {

// Makes `device` current for this thread for the lifetime of the object.
class DeviceSelection {
public:
    explicit DeviceSelection(int device) {
        SHAKEDOWN_CUDA(cudaGetDevice(&previous_));
        SHAKEDOWN_CUDA(cudaSetDevice(device));
    }
    ~DeviceSelection() { cudaSetDevice(previous_); }
    DeviceSelection(const DeviceSelection&) = delete;
    DeviceSelection& operator=(const DeviceSelection&) = delete;

private:
    int previous_ = 0;
};

namespace detail {

struct DeviceMemory {
    static constexpr const char* allocation = "cudaMalloc";
    static cudaError_t allocate(void** pointer, std::size_t bytes) { return cudaMalloc(pointer, bytes); }
    static void release(void* pointer) { cudaFree(pointer); }
};

struct PinnedHostMemory {
    static constexpr const char* allocation = "cudaMallocHost";
    static cudaError_t allocate(void** pointer, std::size_t bytes) { return cudaMallocHost(pointer, bytes); }
    static void release(void* pointer) { cudaFreeHost(pointer); }
};

// `count` elements of T in the memory `Kind` allocates; empty when count is 0.
template <typename T, typename Kind>
class CudaAllocation {
public:
    CudaAllocation() = default;
    explicit CudaAllocation(std::size_t count) : count_(count) {
        if (count_ > 0)
            check_cuda(Kind::allocate(reinterpret_cast<void**>(&data_), count_ * sizeof(T)), Kind::allocation, __FILE__,
                       __LINE__);
    }
    ~CudaAllocation() {
        if (data_ != nullptr) Kind::release(data_);
    }
    CudaAllocation(CudaAllocation&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
    CudaAllocation& operator=(CudaAllocation&& other) noexcept {
        std::swap(data_, other.data_);
        std::swap(count_, other.count_);
        return *this;
    }
    CudaAllocation(const CudaAllocation&) = delete;
    CudaAllocation& operator=(const CudaAllocation&) = delete;

    T* get() const { return data_; }
    template <typename U>
    U* as() const {
        return reinterpret_cast<U*>(data_);
    }
    std::size_t size() const { return count_; }
    std::size_t bytes() const { return count_ * sizeof(T); }

private:
    T* data_ = nullptr;
    std::size_t count_ = 0;
};

}  // namespace detail

template <typename T>
using DeviceBuffer = detail::CudaAllocation<T, detail::DeviceMemory>;

// Page-locked host memory: the GPU copies to and from it at full PCIe speed, and MPI can send
// from it directly.
template <typename T>
using PinnedBuffer = detail::CudaAllocation<T, detail::PinnedHostMemory>;

// `highest`: the block scheduler hands this stream's blocks out before those of normal streams
// as SMs free up; without it a kernel on a second stream waits until a large kernel issued
// before it has dispatched all its blocks, so "concurrent" streams run one after the other.
enum class StreamPriority : std::uint8_t { normal, highest };

class CudaStream {
public:
    explicit CudaStream(StreamPriority priority = StreamPriority::normal) {
        int least = 0, greatest = 0;  // numerically: greatest <= least, 0 is the default
        if (priority == StreamPriority::highest) SHAKEDOWN_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        SHAKEDOWN_CUDA(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking,
                                                    priority == StreamPriority::highest ? greatest : 0));
    }
    ~CudaStream() { cudaStreamDestroy(stream_); }
    CudaStream(const CudaStream&) = delete;
    CudaStream& operator=(const CudaStream&) = delete;
    cudaStream_t get() const { return stream_; }
    void synchronize() const { SHAKEDOWN_CUDA(cudaStreamSynchronize(stream_)); }

private:
    cudaStream_t stream_ = nullptr;
};

class CudaEvent {
public:
    CudaEvent() { SHAKEDOWN_CUDA(cudaEventCreate(&event_)); }
    ~CudaEvent() { cudaEventDestroy(event_); }
    CudaEvent(const CudaEvent&) = delete;
    CudaEvent& operator=(const CudaEvent&) = delete;
    cudaEvent_t get() const { return event_; }
    void record(cudaStream_t stream) { SHAKEDOWN_CUDA(cudaEventRecord(event_, stream)); }

    // Seconds from `start` to this event; waits for this event.
    double seconds_since(const CudaEvent& start) const {
        SHAKEDOWN_CUDA(cudaEventSynchronize(event_));
        float milliseconds = 0.0f;
        SHAKEDOWN_CUDA(cudaEventElapsedTime(&milliseconds, start.event_, event_));
        return static_cast<double>(milliseconds) * 1e-3;
    }

private:
    cudaEvent_t event_ = nullptr;
};

// Seconds between two events recorded around work on `stream` (waits for the second).
class EventTimer {
public:
    explicit EventTimer(cudaStream_t stream) : stream_(stream) {}
    void start() { start_.record(stream_); }
    double stop_seconds() {
        stop_.record(stream_);
        return stop_.seconds_since(start_);
    }

private:
    cudaStream_t stream_;
    CudaEvent start_;
    CudaEvent stop_;
};

}  // namespace shakedown::gpu
