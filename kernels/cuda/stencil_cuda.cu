// The stencil on a CUDA GPU: one thread per cell in blocks 128 cells wide along x (the
// contiguous dimension) and 2 x 2 along y and z, so neighbouring rows and planes are read
// from L1/L2 while they are hot. The interior update is launched asynchronously and runs
// while the host exchanges halos through pinned buffers (no GPU-aware MPI assumed); the
// boundary shell follows once the halos are in.
#include "kernels/stencil/stencil_backend.hpp"
#include "kernels/stencil/stencil_update.hpp"

#include "kernels/cuda/cuda_raii.hpp"

#include <utility>

namespace shakedown::kernels {
namespace {

struct Extent {
    unsigned long long nx, ny, nz;  // interior cells
    __host__ __device__ unsigned long long index(unsigned long long i, unsigned long long j, unsigned long long k) const {
        return i + (nx + 2) * (j + (ny + 2) * k);
    }
};

struct Box {
    unsigned long long lo[3];
    unsigned long long hi[3];
};

__global__ void update_kernel(const double* __restrict__ u, double* __restrict__ v, Extent e, Box box) {
    const unsigned long long i = box.lo[0] + blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
    const unsigned long long j = box.lo[1] + blockIdx.y * static_cast<unsigned long long>(blockDim.y) + threadIdx.y;
    const unsigned long long k = box.lo[2] + blockIdx.z * static_cast<unsigned long long>(blockDim.z) + threadIdx.z;
    if (i >= box.hi[0] || j >= box.hi[1] || k >= box.hi[2]) return;
    const unsigned long long c = e.index(i, j, k);
    const unsigned long long sy = e.nx + 2, sz = (e.nx + 2) * (e.ny + 2);
    v[c] = jacobi_update(u[c], u[c - 1], u[c + 1], u[c - sy], u[c + sy], u[c - sz], u[c + sz]);
}

// Copies between the layer `layer` across dimension d and a face buffer (a fastest).
__global__ void face_kernel(double* u, double* buffer, Extent e, int d, unsigned long long layer, bool into_buffer) {
    const unsigned long long extents[3] = {e.nx, e.ny, e.nz};
    const unsigned long long na = extents[(d + 1) % 3], nb = extents[(d + 2) % 3];
    const unsigned long long a = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
    const unsigned long long b = blockIdx.y * static_cast<unsigned long long>(blockDim.y) + threadIdx.y;
    if (a >= na || b >= nb) return;
    unsigned long long ijk[3];
    ijk[d] = layer;
    ijk[(d + 1) % 3] = a + 1;
    ijk[(d + 2) % 3] = b + 1;
    const unsigned long long c = e.index(ijk[0], ijk[1], ijk[2]);
    if (into_buffer)
        buffer[a + na * b] = u[c];
    else
        u[c] = buffer[a + na * b];
}

__global__ void corrupt_kernel(double* u, unsigned long long c) { u[c] = -2.0 * u[c] - 1.0; }

class CudaStencil final : public StencilBackend {
public:
    CudaStencil(const LocalExtent& local, int device)
        : device_(device), select_(device), local_(local), extent_{local[0], local[1], local[2]},
          cells_((local[0] + 2) * (local[1] + 2) * (local[2] + 2)), u_(cells_), v_(cells_) {
        for (int face = 0; face < 6; ++face) {
            const int d = face / 2;
            const std::size_t count = local[(d + 1) % 3] * local[(d + 2) % 3];
            faces_[face] = DeviceBuffer<double>(count);
            send_[face] = PinnedBuffer<double>(count);
            receive_[face] = PinnedBuffer<double>(count);
        }
    }

    std::string name() const override { return "cuda"; }

    void load(const std::vector<double>& field) override {
        DeviceSelection select(device_);
        cuda_check(cudaMemcpy(u_.get(), field.data(), u_.bytes(), cudaMemcpyHostToDevice), "cudaMemcpy(field)");
        cuda_check(cudaMemcpy(v_.get(), field.data(), v_.bytes(), cudaMemcpyHostToDevice), "cudaMemcpy(field)");
    }

    FaceBufferView send_buffer(int face) override { return {send_[face].get(), send_[face].size()}; }
    FaceBufferView receive_buffer(int face) override { return {receive_[face].get(), receive_[face].size()}; }

    void pack(const FaceMask& faces) override {
        DeviceSelection select(device_);
        for (int face = 0; face < 6; ++face) {
            if (!faces[face]) continue;
            copy_face(face, true);
            cuda_check(cudaMemcpyAsync(send_[face].get(), faces_[face].get(), faces_[face].bytes(), cudaMemcpyDeviceToHost,
                                       stream_.get()),
                       "cudaMemcpyAsync(face)");
        }
        stream_.synchronize();
    }

    void start_interior() override {
        DeviceSelection select(device_);
        update(interior_box(local_));  // asynchronous: runs while the host waits for MPI
    }

    void unpack(const FaceMask& faces) override {
        DeviceSelection select(device_);
        // Same stream as the interior update: the halo writes queue behind it, which keeps
        // the order simple; the interior never reads a halo cell, so nothing waits for data.
        for (int face = 0; face < 6; ++face) {
            if (!faces[face]) continue;
            cuda_check(cudaMemcpyAsync(faces_[face].get(), receive_[face].get(), faces_[face].bytes(), cudaMemcpyHostToDevice,
                                       stream_.get()),
                       "cudaMemcpyAsync(face)");
            copy_face(face, false);
        }
    }

    void finish_step() override {
        DeviceSelection select(device_);
        for (const CellBox& box : shell_boxes(local_)) update(box);
        stream_.synchronize();
        std::swap(u_, v_);
    }

    std::vector<double> field() const override {
        DeviceSelection select(device_);
        std::vector<double> out(cells_);
        cuda_check(cudaMemcpy(out.data(), u_.get(), u_.bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy(field)");
        return out;
    }

    void corrupt(std::size_t i, std::size_t j, std::size_t k) override {
        DeviceSelection select(device_);
        corrupt_kernel<<<1, 1, 0, stream_.get()>>>(u_.get(), extent_.index(i, j, k));
        cuda_check(cudaGetLastError(), "corrupt launch");
        stream_.synchronize();
    }

private:
    void update(const CellBox& cells) {
        if (cells.empty()) return;
        const Box box{{cells.lo[0], cells.lo[1], cells.lo[2]}, {cells.hi[0], cells.hi[1], cells.hi[2]}};
        const dim3 block(128, 2, 2);
        const dim3 grid(static_cast<unsigned>((box.hi[0] - box.lo[0] + block.x - 1) / block.x),
                        static_cast<unsigned>((box.hi[1] - box.lo[1] + block.y - 1) / block.y),
                        static_cast<unsigned>((box.hi[2] - box.lo[2] + block.z - 1) / block.z));
        update_kernel<<<grid, block, 0, stream_.get()>>>(u_.get(), v_.get(), extent_, box);
        cuda_check(cudaGetLastError(), "stencil update launch");
    }

    void copy_face(int face, bool into_buffer) {
        const int d = face / 2;
        const bool high = face % 2 == 1;
        const unsigned long long extents[3] = {extent_.nx, extent_.ny, extent_.nz};
        const unsigned long long layer = into_buffer ? (high ? extents[d] : 1) : (high ? extents[d] + 1 : 0);
        const unsigned long long na = extents[(d + 1) % 3], nb = extents[(d + 2) % 3];
        const dim3 block(32, 8);
        const dim3 grid(static_cast<unsigned>((na + 31) / 32), static_cast<unsigned>((nb + 7) / 8));
        face_kernel<<<grid, block, 0, stream_.get()>>>(u_.get(), faces_[face].get(), extent_, d, layer, into_buffer);
        cuda_check(cudaGetLastError(), "face kernel launch");
    }

    int device_;
    DeviceSelection select_;  // everything below lives on `device_`
    LocalExtent local_;
    Extent extent_;
    std::size_t cells_;
    DeviceBuffer<double> u_, v_;
    std::array<DeviceBuffer<double>, 6> faces_;
    std::array<PinnedBuffer<double>, 6> send_, receive_;
    CudaStream stream_;
};

}  // namespace

std::unique_ptr<StencilBackend> make_cuda_stencil(const LocalExtent& local, int device) {
    return std::make_unique<CudaStencil>(local, device);
}

}  // namespace shakedown::kernels
