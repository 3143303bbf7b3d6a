// Host-to-device copies on a thread of their own while the caller reads the link state.
#include "health/topology/pcie_traffic.hpp"

#include "gpu/cuda_owners.hpp"

#include <atomic>
#include <chrono>
#include <exception>
#include <thread>

namespace shakedown::health {
namespace {

constexpr std::size_t copy_bytes = 64u << 20;  // 64 MiB: ~1 ms at Gen5 x16, long enough to keep the link up
constexpr auto ramp = std::chrono::milliseconds(200);

}  // namespace

bool pcie_traffic_built() { return true; }

void with_pcie_traffic(int device, const std::function<void()>& while_busy) {
    const gpu::DeviceSelection select(device);
    const gpu::PinnedBuffer<char> host(copy_bytes);
    const gpu::DeviceBuffer<char> target(copy_bytes);
    const gpu::CudaStream stream;
    std::atomic<bool> stop{false};
    std::exception_ptr copy_error;
    std::thread copier([&] {
        try {
            const gpu::DeviceSelection on_device(device);
            while (!stop) {
                SHAKEDOWN_CUDA(cudaMemcpyAsync(target.get(), host.get(), copy_bytes, cudaMemcpyHostToDevice, stream.get()));
                stream.synchronize();
            }
        } catch (...) {
            copy_error = std::current_exception();
        }
    });
    {
        struct Join {  // stops the copier also when while_busy throws
            std::atomic<bool>& stop;
            std::thread& thread;
            ~Join() {
                stop = true;
                thread.join();
            }
        } join{stop, copier};
        std::this_thread::sleep_for(ramp);
        while_busy();
    }
    if (copy_error) std::rethrow_exception(copy_error);
}

}  // namespace shakedown::health
