// Host buffers bound to a NUMA node by hwloc, pinned in place by cudaHostRegister (the
// pages are first touched under the binding, so they stay where they were put), copied with
// cudaMemcpyAsync on a stream of their own and timed with events.
#include "health/h2d/host_device_copy.hpp"

#include "inventory/hwloc_topology.hpp"
#include "gpu/cuda_owners.hpp"

#include <fmt/format.h>
#include <hwloc.h>

#include <cstring>
#include <memory>
#include <stdexcept>

namespace shakedown::health {
namespace {


// hwloc bitmap owner.
struct Bitmap {
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    Bitmap() {
        if (set == nullptr) throw std::bad_alloc();
    }
    ~Bitmap() { hwloc_bitmap_free(set); }
    Bitmap(const Bitmap&) = delete;
    Bitmap& operator=(const Bitmap&) = delete;
};

// Host memory on one NUMA node (or anywhere for node -1), page-locked for the GPU.
class NumaPinnedBuffer {
public:
    NumaPinnedBuffer(const HwlocTopology& topology, int numa_node, std::size_t bytes)
        : topology_(topology), bytes_(bytes) {
        if (numa_node >= 0) {
            Bitmap nodes;
            hwloc_bitmap_only(nodes.set, static_cast<unsigned>(numa_node));
            data_ = hwloc_alloc_membind(topology.get(), bytes, nodes.set, HWLOC_MEMBIND_BIND,
                                        HWLOC_MEMBIND_BYNODESET | HWLOC_MEMBIND_STRICT);
        } else {
            data_ = hwloc_alloc(topology.get(), bytes);
        }
        if (data_ == nullptr) throw std::runtime_error(fmt::format("cannot allocate {} B on NUMA node {}", bytes, numa_node));
        std::memset(data_, 0, bytes);  // first touch under the binding: the pages land on the node
        if (const auto status = cudaHostRegister(data_, bytes, cudaHostRegisterDefault); status != cudaSuccess) {
            hwloc_free(topology.get(), data_, bytes);
            gpu::check_cuda(status, "cudaHostRegister", __FILE__, __LINE__);
        }
    }
    ~NumaPinnedBuffer() {
        cudaHostUnregister(data_);
        hwloc_free(topology_.get(), data_, bytes_);
    }
    NumaPinnedBuffer(const NumaPinnedBuffer&) = delete;
    NumaPinnedBuffer& operator=(const NumaPinnedBuffer&) = delete;

    unsigned char* get() const { return static_cast<unsigned char*>(data_); }
    std::size_t bytes() const { return bytes_; }

    // Where the pages really are, as the kernel reports it ("0", "0,1", "unknown").
    std::string nodes_found() const {
        Bitmap nodes;
        if (hwloc_get_area_memlocation(topology_.get(), data_, bytes_, nodes.set, HWLOC_MEMBIND_BYNODESET) != 0)
            return "unknown";
        char* text = nullptr;
        hwloc_bitmap_list_asprintf(&text, nodes.set);
        const std::unique_ptr<char, decltype(&std::free)> owned(text, &std::free);
        return text != nullptr ? std::string(text) : "unknown";
    }

private:
    const HwlocTopology& topology_;
    std::size_t bytes_;
    void* data_ = nullptr;
};

// A position-dependent byte pattern: a misplaced or dropped block cannot look right.
unsigned char pattern_byte(std::size_t i) { return static_cast<unsigned char>((i * 131 + (i >> 12)) & 0xff); }

double gbs(std::size_t bytes, double seconds) { return seconds > 0.0 ? bytes / seconds * 1e-9 : 0.0; }

}  // namespace


CopyFigures measure_host_device_copies(const CopyRequest& request) {
    const HwlocTopology topology;
    const gpu::DeviceSelection select(request.device);
    const NumaPinnedBuffer sent(topology, request.numa_node, request.bytes);
    const NumaPinnedBuffer received(topology, request.numa_node, request.bytes);
    const gpu::DeviceBuffer<unsigned char> device(request.bytes);
    const gpu::CudaStream stream;

    for (std::size_t i = 0; i < request.bytes; ++i) sent.get()[i] = pattern_byte(i);

    CopyFigures figures;
    figures.memory_found_on = sent.nodes_found();
    gpu::EventTimer timer(stream.get());
    // One untimed round trip first: lazy mappings and link retraining are not part of the figure.
    SHAKEDOWN_CUDA(cudaMemcpyAsync(device.get(), sent.get(), request.bytes, cudaMemcpyHostToDevice, stream.get()));
    stream.synchronize();
    for (int rep = 0; rep < request.repetitions; ++rep) {
        timer.start();
        SHAKEDOWN_CUDA(cudaMemcpyAsync(device.get(), sent.get(), request.bytes, cudaMemcpyHostToDevice, stream.get()));
        figures.h2d_gbs.push_back(gbs(request.bytes, timer.stop_seconds()));
        timer.start();
        SHAKEDOWN_CUDA(cudaMemcpyAsync(received.get(), device.get(), request.bytes, cudaMemcpyDeviceToHost, stream.get()));
        figures.d2h_gbs.push_back(gbs(request.bytes, timer.stop_seconds()));
    }
    if (request.plant_corruption) {  // as a flipped bit on the device would: caught on the way back
        const std::size_t victim = request.bytes / 2;
        SHAKEDOWN_CUDA(cudaMemsetAsync(device.get() + victim, static_cast<unsigned char>(~pattern_byte(victim)), 1, stream.get()));
        SHAKEDOWN_CUDA(cudaMemcpyAsync(received.get(), device.get(), request.bytes, cudaMemcpyDeviceToHost, stream.get()));
        stream.synchronize();
    }
    if (std::memcmp(sent.get(), received.get(), request.bytes) != 0) {
        std::size_t first = 0;
        while (first < request.bytes && sent.get()[first] == received.get()[first]) ++first;
        figures.validation_error = fmt::format("byte {} came back as 0x{:02x}, sent 0x{:02x}", first, received.get()[first],
                                               sent.get()[first]);
    }
    return figures;
}

}  // namespace shakedown::health
