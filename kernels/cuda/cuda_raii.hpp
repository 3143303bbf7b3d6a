// Owners for the CUDA objects the kernels use: device buffers, events and streams are
// released when they go out of scope, also when a test throws half-way.
#pragma once

#include "kernels/cuda/cuda_check.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

namespace shakedown::kernels {

// Makes `device` current for this thread for the lifetime of the object.
class DeviceSelection {
public:
    explicit DeviceSelection(int device) {
        cuda_check(cudaGetDevice(&previous_), "cudaGetDevice");
        cuda_check(cudaSetDevice(device), "cudaSetDevice");
    }
    ~DeviceSelection() { cudaSetDevice(previous_); }
    DeviceSelection(const DeviceSelection&) = delete;
    DeviceSelection& operator=(const DeviceSelection&) = delete;

private:
    int previous_ = 0;
};

template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t count) : count_(count) {
        cuda_check(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)), "cudaMalloc");
    }
    ~DeviceBuffer() {
        if (data_) cudaFree(data_);
    }
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        std::swap(data_, other.data_);
        std::swap(count_, other.count_);
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    T* get() const { return data_; }
    std::size_t size() const { return count_; }
    std::size_t bytes() const { return count_ * sizeof(T); }

private:
    T* data_ = nullptr;
    std::size_t count_ = 0;
};

// Page-locked host memory: the GPU copies to and from it at full PCIe speed, and MPI can
// send from it directly.
template <typename T>
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    explicit PinnedBuffer(std::size_t count) : count_(count) {
        cuda_check(cudaMallocHost(reinterpret_cast<void**>(&data_), count * sizeof(T)), "cudaMallocHost");
    }
    ~PinnedBuffer() {
        if (data_) cudaFreeHost(data_);
    }
    PinnedBuffer(PinnedBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
    PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
        std::swap(data_, other.data_);
        std::swap(count_, other.count_);
        return *this;
    }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;

    T* get() const { return data_; }
    std::size_t size() const { return count_; }
    std::size_t bytes() const { return count_ * sizeof(T); }

private:
    T* data_ = nullptr;
    std::size_t count_ = 0;
};

class CudaEvent {
public:
    CudaEvent() { cuda_check(cudaEventCreate(&event_), "cudaEventCreate"); }
    ~CudaEvent() { cudaEventDestroy(event_); }
    CudaEvent(const CudaEvent&) = delete;
    CudaEvent& operator=(const CudaEvent&) = delete;
    cudaEvent_t get() const { return event_; }

private:
    cudaEvent_t event_ = nullptr;
};

class CudaStream {
public:
    CudaStream() { cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate"); }
    ~CudaStream() { cudaStreamDestroy(stream_); }
    CudaStream(const CudaStream&) = delete;
    CudaStream& operator=(const CudaStream&) = delete;
    cudaStream_t get() const { return stream_; }
    void synchronize() const { cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

private:
    cudaStream_t stream_ = nullptr;
};

// Seconds between two events recorded around work on `stream` (waits for the second).
class EventTimer {
public:
    explicit EventTimer(cudaStream_t stream) : stream_(stream) {}
    void start() { cuda_check(cudaEventRecord(start_.get(), stream_), "cudaEventRecord"); }
    double stop_seconds() {
        cuda_check(cudaEventRecord(stop_.get(), stream_), "cudaEventRecord");
        cuda_check(cudaEventSynchronize(stop_.get()), "cudaEventSynchronize");
        float ms = 0.0f;
        cuda_check(cudaEventElapsedTime(&ms, start_.get(), stop_.get()), "cudaEventElapsedTime");
        return ms * 1e-3;
    }

private:
    cudaStream_t stream_;
    CudaEvent start_;
    CudaEvent stop_;
};

}  // namespace shakedown::kernels
