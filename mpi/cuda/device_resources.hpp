// RAII owners of CUDA device memory, streams and events: released when they go out of
// scope, also when a test throws half-way.
#pragma once

#include "mpi/cuda/cuda_check.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace shakedown::mpi {

class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
        if (bytes_ > 0) SHAKEDOWN_CUDA(cudaMalloc(&data_, bytes_));
    }
    ~DeviceBuffer() {
        if (data_ != nullptr) cudaFree(data_);
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        if (this != &other) {
            if (data_ != nullptr) cudaFree(data_);
            data_ = std::exchange(other.data_, nullptr);
            bytes_ = std::exchange(other.bytes_, 0);
        }
        return *this;
    }

    void* get() const { return data_; }
    template <typename T>
    T* as() const {
        return static_cast<T*>(data_);
    }
    std::size_t bytes() const { return bytes_; }

private:
    void* data_ = nullptr;
    std::size_t bytes_ = 0;
};

class CudaStream {
public:
    CudaStream() { SHAKEDOWN_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
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
    void record(cudaStream_t stream) { SHAKEDOWN_CUDA(cudaEventRecord(event_, stream)); }
    cudaEvent_t get() const { return event_; }

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

}  // namespace shakedown::mpi
