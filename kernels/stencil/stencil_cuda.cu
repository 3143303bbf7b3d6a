// The stencil on a CUDA GPU, shaped by bench/gpu/stencil_probe.cu, which includes the kernels
// (stencil_kernels.cuh) and times them against its candidates:
// - Device layout: rows padded to a multiple of 16 doubles and the field offset by 15, so
//   cell i = 1 of every row starts a 128-byte line (the public layout, rows of nx+2, is kept
//   on the host: load() and field() copy with a pitch). Indices are 32-bit when the padded
//   field has fewer than 2^31 elements (every size that fits one GPU today up to ~1290^3).
// - The update is a z-march: 2-D thread blocks over x-y, each thread walking z_chunk planes
//   along z with the cells below, at and above it in registers, so each plane is read from
//   memory once; x and y neighbours come from L1/L2. By default each thread owns two adjacent
//   x cells (one 16-byte load/store per plane, x neighbours by warp shuffles:
//   zmarch_pairs_kernel); gpu_cells_per_thread 1 keeps the one-cell z-march (zmarch_kernel).
// - The interior reaches every face without a neighbour (its halo is the fixed boundary), so
//   one rank alone runs one launch per step; only slabs next to neighbour faces wait for
//   the halos, each as one launch over its cells.
// - Packing runs on its own high-priority stream, queued before the interior, so the host
//   can post its sends while the interior runs; the received halos go back the same way, and
//   the shell waits for them through an event. y and z faces are rows of the field: one
//   pitched copy between the field and pinned memory, no kernel (2 and 4 ranks cut only
//   along z and y, StencilGeometry::decomposition); an x face (a column per row) is gathered
//   by a kernel first. No GPU-aware MPI is assumed.
// - No host wait at the end of a step: the next interior queues behind this step's shell on
//   the compute stream, and the next packing waits for this step through an event. Without
//   neighbours every step is queued at once and the host waits once (synchronize()).
// - halo_path nccl (opt-in, builds with NCCL): the faces travel GPU to GPU with ncclSend/
//   ncclRecv in one group on the halo stream, from and into device memory, and the host
//   never waits per step. A z face goes straight from the field: the span from cell (1,1) to
//   (nx,ny) of the boundary plane is contiguous on the device and lands on the same span of
//   the neighbour's halo plane (the x halos and padding between the rows travel along and
//   land on edge cells of that halo plane, which no 7-point update reads). y and x faces are
//   gathered into device buffers (pitched copy / face kernel) and scattered back the same
//   way. Order, all on the halo stream unless said: wait for the previous step (its shell
//   wrote the faces) -> pack -> group(send, receive) -> unpack -> event the shell waits for
//   on the compute stream. So the sends read this step's field, the shell reads halos that
//   have arrived, and a buffer is reused only after the group that used it (stream order);
//   the next step's interior, which overwrites this field, queues behind the shell.
#include "kernels/stencil/stencil_backend.hpp"
#include "kernels/stencil/stencil_kernels.cuh"

#include "gpu/cuda_owners.hpp"

#include "core/errors.hpp"

#ifdef SHAKEDOWN_KERNELS_HAVE_NCCL
#include "kernels/common/nccl_face_exchange.hpp"
#endif

#include <cstdint>
#include <memory>
#include <limits>
#include <utility>

namespace shakedown::kernels {
namespace {

__global__ void corrupt_kernel(double* u, std::int64_t c) { u[c] = -2.0 * u[c] - 1.0; }

// The halo stream: highest priority, so its small kernels start as soon as an SM frees up
// while the interior runs.
class PriorityStream {
public:
    PriorityStream() {
        int least = 0, greatest = 0;
        SHAKEDOWN_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        SHAKEDOWN_CUDA(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, greatest));
    }
    ~PriorityStream() { cudaStreamDestroy(stream_); }
    PriorityStream(const PriorityStream&) = delete;
    PriorityStream& operator=(const PriorityStream&) = delete;
    cudaStream_t get() const { return stream_; }
    void synchronize() const { SHAKEDOWN_CUDA(cudaStreamSynchronize(stream_)); }

private:
    cudaStream_t stream_ = nullptr;
};

class CudaStencil final : public StencilBackend {
public:
    CudaStencil(const LocalExtent& local, int device)
        : device_(device), select_(device), local_(local), layout_(padded_layout(local[0], local[1], local[2])),
          narrow_(layout_.allocation() < std::numeric_limits<int>::max()),
          u_(static_cast<std::size_t>(layout_.allocation())), v_(static_cast<std::size_t>(layout_.allocation())) {
        for (int face = 0; face < 6; ++face) {
            const int d = face / 2;
            const std::size_t count = local[(d + 1) % 3] * local[(d + 2) % 3];
            if (d == 0) x_faces_[face] = gpu::DeviceBuffer<double>(count);
            send_[face] = gpu::PinnedBuffer<double>(count);
            for (auto& receive : receive_) receive[face] = gpu::PinnedBuffer<double>(count);
        }
        // Padding never enters the update; zero it so the device fields are fully defined.
        SHAKEDOWN_CUDA(cudaMemset(u_.get(), 0, u_.bytes()));
        SHAKEDOWN_CUDA(cudaMemset(v_.get(), 0, v_.bytes()));
    }

    std::string name() const override { return "cuda"; }
    void set_gpu_shape(const GpuStencilShape& shape) override {
        // stencil3d's parameter check refuses these first; a backend used otherwise says so too.
        if (shape.cells_per_thread != 1 && shape.cells_per_thread != 2)
            throw InputError("stencil3d: gpu_cells_per_thread must be 1 or 2");
        if (shape.cells_per_thread == 2 && shape.block_x % 32 != 0)
            throw InputError("stencil3d: two cells per thread need gpu_block_x a multiple of 32 (x neighbours cross lanes by warp shuffles)");
        shape_ = shape;
    }
    bool interior_runs_asynchronously() const override { return true; }

    void load(const std::vector<double>& field) override {
        gpu::DeviceSelection select(device_);
        for (double* target : {u_.get(), v_.get()})  // both fields start with the boundary halos
            SHAKEDOWN_CUDA(cudaMemcpy2D(target + DeviceLayout::lead, layout_.row * sizeof(double), field.data(),
                                    (layout_.nx + 2) * sizeof(double), (layout_.nx + 2) * sizeof(double),
                                    (layout_.ny + 2) * (layout_.nz + 2), cudaMemcpyHostToDevice));
        // The copies ran on the legacy stream, which does not order the non-blocking ones.
        SHAKEDOWN_CUDA(cudaDeviceSynchronize());
    }

    FaceBufferView send_buffer(int face) override { return {send_[face].get(), send_[face].size()}; }
    // Two sets, alternating per step: this step's receives may arrive while the previous
    // step's copy to the device still reads the other set.
    FaceBufferView receive_buffer(int face) override {
        const auto& buffer = receive_[parity_][face];
        return {buffer.get(), buffer.size()};
    }

    void pack(const FaceMask& faces) override {
        gpu::DeviceSelection select(device_);
        neighbours_ = faces;
        exchanging_ = false;
        for (const bool face : faces) exchanging_ = exchanging_ || face;
        if (!exchanging_) return;
        // The faces belong to the field the previous step is still writing.
        SHAKEDOWN_CUDA(cudaStreamWaitEvent(halo_.get(), step_done_.get(), 0));
        for (int face = 0; face < 6; ++face) {
            if (!faces[face]) continue;
            if (!on_device_)
                copy_face(face, send_[face].get(), /*from_field=*/true, /*buffer_on_device=*/false);
            else if (face / 2 != 2)  // z faces are sent straight from the field
                copy_face(face, device_send_[face].get(), /*from_field=*/true, /*buffer_on_device=*/true);
        }
    }

    void wait_packed() override {
        gpu::DeviceSelection select(device_);
        if (exchanging_ && !on_device_) halo_.synchronize();  // the host sends from pinned memory
    }

    void start_interior() override {
        gpu::DeviceSelection select(device_);
        update_interior(interior_box(local_, neighbours_));
    }

    void unpack(const FaceMask& faces) override {
        gpu::DeviceSelection select(device_);
        // The interior reads no halo a neighbour sends, so these writes need not wait for it;
        // pack() made the halo stream wait for the previous step, the last to read these halos
        // (two steps back, the same memory was the current field).
        bool any = false;
        for (int face = 0; face < 6; ++face) {
            if (!faces[face]) continue;
            any = true;
            if (!on_device_)
                copy_face(face, receive_[parity_][face].get(), /*from_field=*/false, /*buffer_on_device=*/false);
            else if (face / 2 != 2)  // z faces were received straight into the halo plane
                copy_face(face, device_receive_[face].get(), /*from_field=*/false, /*buffer_on_device=*/true);
        }
        if (any) {
            SHAKEDOWN_CUDA(cudaEventRecord(unpacked_.get(), halo_.get()));
            SHAKEDOWN_CUDA(cudaStreamWaitEvent(compute_.get(), unpacked_.get(), 0));
        }
    }

    void finish_step() override {
        gpu::DeviceSelection select(device_);
        for (const CellBox& box : shell_boxes(local_, neighbours_)) update_slab(box);
        SHAKEDOWN_CUDA(cudaEventRecord(step_done_.get(), compute_.get()));
        std::swap(u_, v_);
        parity_ ^= 1;
    }

    void synchronize() override {
        gpu::DeviceSelection select(device_);
        wait_for_queued_work();
    }

    void use_device_halo_exchange(MPI_Comm comm, const std::array<int, 6>& neighbour_ranks) override {
#ifdef SHAKEDOWN_KERNELS_HAVE_NCCL
        gpu::DeviceSelection select(device_);
        for (int face = 0; face < 6; ++face) {
            const int d = face / 2;
            if (neighbour_ranks[face] == MPI_PROC_NULL || d == 2) continue;
            const std::size_t count = local_[(d + 1) % 3] * local_[(d + 2) % 3];
            device_send_[face] = gpu::DeviceBuffer<double>(count);
            device_receive_[face] = gpu::DeviceBuffer<double>(count);
        }
        neighbour_ranks_ = neighbour_ranks;
        nccl_ = std::make_unique<gpu::NcclCommunicator>(comm, device_);
        on_device_ = true;
#else
        (void)comm;
        (void)neighbour_ranks;
        throw InputError("stencil3d: halo_path nccl needs a build with NCCL; this one has none (use halo_path: host)");
#endif
    }
    bool exchanges_halos_on_device() const override { return on_device_; }

    void exchange(const FaceMask& faces) override {
#ifdef SHAKEDOWN_KERNELS_HAVE_NCCL
        gpu::DeviceSelection select(device_);
        if (!on_device_ || !exchanging_) return;
        exchange_faces_over_nccl(*nccl_, halo_.get(), neighbour_ranks_, faces,
                                 [this](int face, bool outgoing) { return device_face(face, outgoing); });
#else
        (void)faces;
#endif
    }

    std::vector<double> field() const override {
        gpu::DeviceSelection select(device_);
        wait_for_queued_work();  // the copy below runs on the legacy stream, unordered with ours
        std::vector<double> out(static_cast<std::size_t>((layout_.nx + 2) * (layout_.ny + 2) * (layout_.nz + 2)));
        SHAKEDOWN_CUDA(cudaMemcpy2D(out.data(), (layout_.nx + 2) * sizeof(double), u_.get() + DeviceLayout::lead,
                                layout_.row * sizeof(double), (layout_.nx + 2) * sizeof(double),
                                (layout_.ny + 2) * (layout_.nz + 2), cudaMemcpyDeviceToHost));
        return out;
    }

    void corrupt(std::size_t i, std::size_t j, std::size_t k) override {
        gpu::DeviceSelection select(device_);
        wait_for_queued_work();
        corrupt_kernel<<<1, 1, 0, compute_.get()>>>(u_.get() + DeviceLayout::lead,
                                                      layout_.index(static_cast<std::int64_t>(i), static_cast<std::int64_t>(j),
                                                                    static_cast<std::int64_t>(k)));
        SHAKEDOWN_CUDA_LAUNCH("corrupt launch");
        compute_.synchronize();
    }

private:
    void wait_for_queued_work() const {
        compute_.synchronize();
        halo_.synchronize();
    }

    static Box to_box(const CellBox& cells) {
        return Box{{static_cast<int>(cells.lo[0]), static_cast<int>(cells.lo[1]), static_cast<int>(cells.lo[2])},
                   {static_cast<int>(cells.hi[0]), static_cast<int>(cells.hi[1]), static_cast<int>(cells.hi[2])}};
    }
    const double* current() const { return u_.get() + DeviceLayout::lead; }
    double* next() const { return v_.get() + DeviceLayout::lead; }

    void update_interior(const CellBox& cells) {
        if (cells.empty()) return;
        const Box box = to_box(cells);
        const int chunk = shape_.z_chunk > 0 ? shape_.z_chunk : box.hi[2] - box.lo[2];
        const dim3 block(static_cast<unsigned>(shape_.block_x), static_cast<unsigned>(shape_.block_y));
        // x work items from cell 1 up to the box end: cells, or pairs of cells.
        const unsigned x_items = static_cast<unsigned>(shape_.cells_per_thread == 2 ? box.hi[0] / 2 : box.hi[0] - 1);
        const dim3 grid((x_items + block.x - 1) / block.x, (static_cast<unsigned>(box.hi[1] - box.lo[1]) + block.y - 1) / block.y,
                        (static_cast<unsigned>(box.hi[2] - box.lo[2]) + chunk - 1) / chunk);
        if (shape_.cells_per_thread == 2) {
            if (narrow_)
                zmarch_pairs_kernel<int><<<grid, block, 0, compute_.get()>>>(current(), next(), static_cast<int>(layout_.row),
                                                                             static_cast<int>(layout_.plane), box, chunk);
            else
                zmarch_pairs_kernel<std::int64_t><<<grid, block, 0, compute_.get()>>>(current(), next(), layout_.row, layout_.plane,
                                                                                      box, chunk);
        } else if (narrow_)
            zmarch_kernel<int><<<grid, block, 0, compute_.get()>>>(current(), next(), static_cast<int>(layout_.row),
                                                                   static_cast<int>(layout_.plane), box, chunk);
        else
            zmarch_kernel<std::int64_t><<<grid, block, 0, compute_.get()>>>(current(), next(), layout_.row, layout_.plane, box, chunk);
        SHAKEDOWN_CUDA_LAUNCH("stencil update launch");
    }

    void update_slab(const CellBox& cells) {
        if (cells.empty()) return;
        const Box box = to_box(cells);
        const std::size_t count = (cells.hi[0] - cells.lo[0]) * (cells.hi[1] - cells.lo[1]) * (cells.hi[2] - cells.lo[2]);
        const unsigned blocks = static_cast<unsigned>((count + 255) / 256);
        if (narrow_)
            slab_kernel<int><<<blocks, 256, 0, compute_.get()>>>(current(), next(), static_cast<int>(layout_.row),
                                                                 static_cast<int>(layout_.plane), box);
        else
            slab_kernel<std::int64_t><<<blocks, 256, 0, compute_.get()>>>(current(), next(), layout_.row, layout_.plane, box);
        SHAKEDOWN_CUDA_LAUNCH("stencil shell launch");
    }

    // The boundary layer of the current field -> `buffer` (from_field), or `buffer` -> the
    // halo layer beyond the face, on the halo stream; `buffer` is pinned host memory or, on
    // the device path, device memory. Buffer order: x face j fastest then k; y face i then
    // k; z face i then j (what the neighbour's same code expects).
    void copy_face(int face, double* buffer, bool from_field, bool buffer_on_device) {
        const int d = face / 2;
        const bool high = face % 2 == 1;
        const std::int64_t extents[3] = {layout_.nx, layout_.ny, layout_.nz};
        const std::int64_t layer = from_field ? (high ? extents[d] : 1) : (high ? extents[d] + 1 : 0);
        double* field = u_.get() + DeviceLayout::lead;
        const std::size_t bytes = static_cast<std::size_t>(extents[(d + 1) % 3] * extents[(d + 2) % 3]) * sizeof(double);
        if (d == 0) {
            const dim3 block(32, 8);
            const dim3 grid(static_cast<unsigned>((layout_.ny + 31) / 32), static_cast<unsigned>((layout_.nz + 7) / 8));
            if (buffer_on_device) {  // the face kernel reads or writes the device buffer itself
                x_face_kernel<<<grid, block, 0, halo_.get()>>>(field, buffer, layout_, layer, from_field);
                SHAKEDOWN_CUDA_LAUNCH("face kernel launch");
                return;
            }
            double* staging = x_faces_[face].get();
            if (from_field) {
                x_face_kernel<<<grid, block, 0, halo_.get()>>>(field, staging, layout_, layer, true);
                SHAKEDOWN_CUDA_LAUNCH("face kernel launch");
                SHAKEDOWN_CUDA(cudaMemcpyAsync(buffer, staging, bytes, cudaMemcpyDeviceToHost, halo_.get()));
            } else {
                SHAKEDOWN_CUDA(cudaMemcpyAsync(staging, buffer, bytes, cudaMemcpyHostToDevice, halo_.get()));
                x_face_kernel<<<grid, block, 0, halo_.get()>>>(field, staging, layout_, layer, false);
                SHAKEDOWN_CUDA_LAUNCH("face kernel launch");
            }
            return;
        }
        // y face: rows (i = 1..nx) at j = layer, one per k (pitch: a plane); z face: the rows
        // of plane k = layer (pitch: a row).
        double* first = field + (d == 1 ? layout_.index(1, layer, 1) : layout_.index(1, 1, layer));
        const std::size_t device_pitch = static_cast<std::size_t>(d == 1 ? layout_.plane : layout_.row) * sizeof(double);
        const std::size_t width = static_cast<std::size_t>(layout_.nx) * sizeof(double);
        const std::size_t rows = static_cast<std::size_t>(d == 1 ? layout_.nz : layout_.ny);
        if (from_field)
            SHAKEDOWN_CUDA(cudaMemcpy2DAsync(buffer, width, first, device_pitch, width, rows,
                                         buffer_on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost, halo_.get()));
        else
            SHAKEDOWN_CUDA(cudaMemcpy2DAsync(first, device_pitch, buffer, width, width, rows,
                                         buffer_on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice, halo_.get()));
    }

#ifdef SHAKEDOWN_KERNELS_HAVE_NCCL
    // What NCCL sends through / receives at `face` on the device path: a z face is the
    // contiguous span (1,1)..(nx,ny) of the boundary plane (outgoing) or of the halo plane
    // beyond it (incoming), rows at the device pitch; other faces are their device buffers.
    NcclFace device_face(int face, bool outgoing) {
        if (face / 2 != 2) {
            auto& buffer = outgoing ? device_send_[face] : device_receive_[face];
            return {buffer.get(), buffer.size()};
        }
        const bool high = face % 2 == 1;
        const std::int64_t plane = outgoing ? (high ? layout_.nz : 1) : (high ? layout_.nz + 1 : 0);
        double* field = u_.get() + DeviceLayout::lead;
        return {field + layout_.index(1, 1, plane), static_cast<std::size_t>((layout_.ny - 1) * layout_.row + layout_.nx)};
    }
#endif

    int device_;
    gpu::DeviceSelection select_;  // everything below lives on `device_`
    LocalExtent local_;
    DeviceLayout layout_;
    bool narrow_;  // 32-bit indices suffice
    GpuStencilShape shape_;
    FaceMask neighbours_{true, true, true, true, true, true};  // until pack() says otherwise
    bool exchanging_ = false;  // this step has a neighbour
    int parity_ = 0;           // which receive set this step uses
    gpu::DeviceBuffer<double> u_, v_;
    std::array<gpu::DeviceBuffer<double>, 6> x_faces_;  // device staging of x faces (allocated for x only)
    std::array<gpu::PinnedBuffer<double>, 6> send_;
    std::array<std::array<gpu::PinnedBuffer<double>, 6>, 2> receive_;
    gpu::CudaStream compute_;
    PriorityStream halo_;
    gpu::CudaEvent unpacked_;
    gpu::CudaEvent step_done_;  // recorded after each step's last kernel
    // Device halo path (halo_path nccl): x/y face buffers on the GPU (z faces need none), the
    // neighbours' NCCL ranks, and the communicator, declared last so that it is finalized
    // (its queued operations complete) before the buffers and streams go.
    bool on_device_ = false;
    std::array<gpu::DeviceBuffer<double>, 6> device_send_, device_receive_;
    std::array<int, 6> neighbour_ranks_{};
#ifdef SHAKEDOWN_KERNELS_HAVE_NCCL
    std::unique_ptr<gpu::NcclCommunicator> nccl_;
#endif
};

}  // namespace

std::unique_ptr<StencilBackend> make_cuda_stencil(const LocalExtent& local, int device) {
    return std::make_unique<CudaStencil>(local, device);
}

}  // namespace shakedown::kernels
