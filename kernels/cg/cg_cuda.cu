// The CG on a CUDA GPU. Every vector is a device field in FieldLayout (one halo layer, no
// padding); everything runs in order on one stream. With several ranks each iteration waits for
// its two dot products (the host sums them with MPI_Allreduce and passes alpha and beta back).
// A rank alone queues whole iterations (queue_iteration): p.q, alpha, r.r and beta stay in a
// device Scalars struct, written by the last block of each reduction (one thread) and read by
// the next kernels on the same stream, so the host waits only at the end of the solve.
// - SpMV: a z-march as stencil3d's (threads over 128-wide rows of x, coalesced, each walking 8
//   planes along z with the cells below, at and above it in registers, so p is read from memory
//   once), over the interior (interior_box with the neighbour faces held back) and the shell slabs.
// - Dot products: each thread sums 8 planes, per-block tree sums in shared memory into a partials array, then one block
//   sums the partials in a fixed order (deterministic, no atomics), 8 bytes copied to pinned
//   host memory; the x, r update and r.r are one pass, which loads all 8 planes' operands
//   before its first store (SplitsLoads).
// - Halos: every face is gathered by a kernel into a device buffer and scattered back the same
//   way. halo_path host: the buffers go to and from pinned host memory, MPI moves them
//   (HaloExchange); halo_path nccl: ncclSend/ncclRecv in one group on the stream, from and into
//   the device buffers, no host copy.
#include "kernels/cg/cg_backend.hpp"
#include "kernels/cg/cg_math.hpp"

#include "gpu/cuda_owners.hpp"

#include "core/errors.hpp"

#ifdef SHAKEDOWN_KERNELS_HAVE_NCCL
#include "kernels/common/nccl_face_exchange.hpp"
#endif

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

namespace shakedown::kernels::cg {
namespace {

constexpr int row_threads = 128;
constexpr int sum_threads = 256;

struct Box {
    std::int64_t lo[3];
    std::int64_t hi[3];
};

Box to_box(const CellBox& cells) {
    return Box{{static_cast<std::int64_t>(cells.lo[0]), static_cast<std::int64_t>(cells.lo[1]), static_cast<std::int64_t>(cells.lo[2])},
               {static_cast<std::int64_t>(cells.hi[0]), static_cast<std::int64_t>(cells.hi[1]), static_cast<std::int64_t>(cells.hi[2])}};
}

// Blocks of row_threads along x, one block row per (j, k) of the box.
dim3 grid_of(const Box& box) {
    return dim3(static_cast<unsigned>((box.hi[0] - box.lo[0] + row_threads - 1) / row_threads),
                static_cast<unsigned>(box.hi[1] - box.lo[1]), static_cast<unsigned>(box.hi[2] - box.lo[2]));
}

// The cell this thread owns, or false beyond the box's x end.
__device__ bool cell_of(const Box& box, std::int64_t& i, std::int64_t& j, std::int64_t& k) {
    i = box.lo[0] + static_cast<std::int64_t>(blockIdx.x) * row_threads + threadIdx.x;
    j = box.lo[1] + blockIdx.y;
    k = box.lo[2] + blockIdx.z;
    return i < box.hi[0];
}

template <class Op>
__global__ void for_cells_kernel(Op op, FieldLayout layout, Box box) {
    std::int64_t i, j, k;
    if (cell_of(box, i, j, k)) op(layout.index(i, j, k));
}

// The reductions' grid: as grid_of, but each thread walks sum_planes planes along z, so a block
// sums sum_planes x row_threads cells before its tree (one cell per thread left the H200 at
// 0.66 of triad with 131k blocks' partials for a 256^3 block).
constexpr int sum_planes = 8;
dim3 sum_grid_of(const Box& box) {
    const dim3 grid = grid_of(box);
    return dim3(grid.x, grid.y, static_cast<unsigned>((box.hi[2] - box.lo[2] + sum_planes - 1) / sum_planes));
}

// An op that stores as well as loads (the x, r update) splits into load(cell) -> Loaded and
// store(cell, Loaded) -> term: the reduction loads every plane of a thread before its first
// store. As one call per plane, the compiler could not move the next plane's loads of p and q
// above the stores to x and r (they might alias), and each thread waited out a memory round
// trip per plane: the update ran at 0.61 of triad on an H200 (kernel_timing) where the dots,
// which only load, ran at 0.87.
template <class Op, class = void>
struct SplitsLoads : std::false_type {};
template <class Op>
struct SplitsLoads<Op, std::void_t<typename Op::Loaded>> : std::true_type {};

// Each block's sum of op(cell) -> partials[block], the planes summed in order either way.
template <class Op>
__global__ void sum_cells_kernel(Op op, FieldLayout layout, Box box, double* partials) {
    __shared__ double shared[row_threads];
    const std::int64_t i = box.lo[0] + static_cast<std::int64_t>(blockIdx.x) * row_threads + threadIdx.x;
    const std::int64_t j = box.lo[1] + blockIdx.y;
    const std::int64_t k0 = box.lo[2] + static_cast<std::int64_t>(blockIdx.z) * sum_planes;
    const std::int64_t k1 = k0 + sum_planes < box.hi[2] ? k0 + sum_planes : box.hi[2];
    double sum = 0.0;
    if (i < box.hi[0]) {
        if constexpr (SplitsLoads<Op>::value) {
            typename Op::Loaded loaded[sum_planes];
#pragma unroll
            for (int n = 0; n < sum_planes; ++n)
                if (k0 + n < k1) loaded[n] = op.load(layout.index(i, j, k0 + n));
#pragma unroll
            for (int n = 0; n < sum_planes; ++n)
                if (k0 + n < k1) sum += op.store(layout.index(i, j, k0 + n), loaded[n]);
        } else {
            for (std::int64_t k = k0; k < k1; ++k) sum += op(layout.index(i, j, k));
        }
    }
    shared[threadIdx.x] = sum;
    __syncthreads();
    for (int half = row_threads / 2; half > 0; half /= 2) {
        if (static_cast<int>(threadIdx.x) < half) shared[threadIdx.x] += shared[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partials[blockIdx.x + static_cast<std::int64_t>(gridDim.x) * (blockIdx.y + static_cast<std::int64_t>(gridDim.y) * blockIdx.z)] =
            shared[0];
}

// The scalars of queued iterations (queue_iteration), in device memory. stop: 0 running; 2 the
// tolerance reached in this iteration (its p update still runs); 1 stopped (nothing runs).
struct Scalars {
    double rr, bb, tolerance, pq, alpha, beta;
    long long iterations;
    int stop, breakdown;
};

__global__ void start_scalars_kernel(Scalars* s, double bb, double tolerance) {
    *s = Scalars{bb, bb, tolerance, 0.0, 0.0, 0.0, 0, 0, 0};
}

// What the reduction's last thread does with the total.
struct StoreTotal {
    double* total;
    __device__ void operator()(double sum) const { *total = sum; }
};
// p.q -> alpha = r.r / p.q, as the solver's host loop (which stops at a p.q not positive).
struct FinishPq {
    Scalars* s;
    __device__ void operator()(double pq) const {
        if (s->stop != 0) {
            s->stop = 1;
            return;
        }
        s->pq = pq;
        if (!(pq > 0.0)) {
            s->stop = 1;
            s->breakdown = 1;
            return;
        }
        s->alpha = s->rr / pq;
    }
};
// The new r.r -> beta = new / old, r.r := new, one more iteration, the tolerance stop.
struct FinishRr {
    Scalars* s;
    __device__ void operator()(double next) const {
        if (s->stop != 0) return;
        s->beta = next / s->rr;
        s->rr = next;
        ++s->iterations;
        if (s->tolerance > 0.0 && sqrt(s->rr / s->bb) <= s->tolerance) s->stop = 2;
    }
};

// One block: partials[0..count) -> finish(total), in a fixed order.
template <class Finish>
__global__ void sum_partials_kernel(const double* partials, std::int64_t count, Finish finish) {
    __shared__ double shared[sum_threads];
    double sum = 0.0;
    for (std::int64_t n = threadIdx.x; n < count; n += sum_threads) sum += partials[n];
    shared[threadIdx.x] = sum;
    __syncthreads();
    for (int half = sum_threads / 2; half > 0; half /= 2) {
        if (static_cast<int>(threadIdx.x) < half) shared[threadIdx.x] += shared[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) finish(shared[0]);
}

// q = A p over a box: the reductions' grid (sum_grid_of), each thread marching its planes
// along z with p below, at and above its cell in registers. gate: queued iterations do nothing
// once stopped; else nullptr.
__global__ void spmv_kernel(const double* __restrict__ p, double* __restrict__ q, FieldLayout layout, Box box,
                            const Scalars* gate) {
    if (gate != nullptr && gate->stop != 0) return;
    const std::int64_t i = box.lo[0] + static_cast<std::int64_t>(blockIdx.x) * row_threads + threadIdx.x;
    if (i >= box.hi[0]) return;
    const std::int64_t j = box.lo[1] + blockIdx.y;
    const std::int64_t k0 = box.lo[2] + static_cast<std::int64_t>(blockIdx.z) * sum_planes;
    const std::int64_t k1 = k0 + sum_planes < box.hi[2] ? k0 + sum_planes : box.hi[2];
    const std::int64_t sy = layout.nx + 2, sz = sy * (layout.ny + 2);
    std::int64_t c = layout.index(i, j, k0);
    double below = p[c - sz], at = p[c];
    for (std::int64_t k = k0; k < k1; ++k) {
        const double above = p[c + sz];
        q[c] = apply_laplacian(at, p[c - 1], p[c + 1], p[c - sy], p[c + sy], below, above);
        below = at;
        at = above;
        c += sz;
    }
}
struct Copy {
    const double* from;
    double* to;
    __device__ void operator()(std::int64_t c) const { to[c] = from[c]; }
};
struct StartSolve {
    const double* b;
    double *x, *r, *p;
    __device__ double operator()(std::int64_t c) const {
        x[c] = 0.0;
        r[c] = b[c];
        p[c] = b[c];
        return b[c] * b[c];
    }
};
struct Dot {
    const double *u, *v;
    __device__ double operator()(std::int64_t c) const { return u[c] * v[c]; }
};
struct SquaredDifference {
    const double *u, *v;
    __device__ double operator()(std::int64_t c) const { return (u[c] - v[c]) * (u[c] - v[c]); }
};
// x += alpha p, r -= alpha q, r.r (SplitsLoads: loads first, then the stores).
struct XrOperands {
    double p, q, x, r;
};
struct UpdateXR {
    using Loaded = XrOperands;
    double alpha;
    const double *p, *q;
    double *x, *r;
    __device__ Loaded load(std::int64_t c) const { return {p[c], q[c], x[c], r[c]}; }
    __device__ double store(std::int64_t c, const Loaded& v) const {
        x[c] = v.x + alpha * v.p;
        const double next = v.r - alpha * v.q;
        r[c] = next;
        return next * next;
    }
};
struct UpdateP {
    double beta;
    const double* r;
    double* p;
    __device__ void operator()(std::int64_t c) const { p[c] = r[c] + beta * p[c]; }
};
// The queued iterations' forms of p.q and the updates: the same arithmetic, alpha and beta
// read from the device scalars, nothing done once stopped.
struct QueuedDot {
    const Scalars* s;
    const double *u, *v;
    __device__ double operator()(std::int64_t c) const { return s->stop != 0 ? 0.0 : u[c] * v[c]; }
};
struct QueuedUpdateXR {
    using Loaded = XrOperands;
    const Scalars* s;
    const double *p, *q;
    double *x, *r;
    __device__ Loaded load(std::int64_t c) const { return {p[c], q[c], x[c], r[c]}; }
    __device__ double store(std::int64_t c, const Loaded& v) const {
        if (s->stop != 0) return 0.0;
        const double alpha = s->alpha;
        x[c] = v.x + alpha * v.p;
        const double next = v.r - alpha * v.q;
        r[c] = next;
        return next * next;
    }
};
struct QueuedUpdateP {
    const Scalars* s;
    const double* r;
    double* p;
    __device__ void operator()(std::int64_t c) const {
        if (s->stop == 1) return;
        p[c] = r[c] + s->beta * p[c];
    }
};

// Face cells (a, b) <-> a face buffer, one thread per cell (face_index: cg_backend.hpp).
__global__ void face_kernel(double* field, double* buffer, FieldLayout layout, int face, bool to_halo) {
    const std::int64_t a = 1 + static_cast<std::int64_t>(blockIdx.x) * row_threads + threadIdx.x;
    const std::int64_t b = 1 + static_cast<std::int64_t>(blockIdx.y);
    const std::int64_t na = layout.face_a(face);
    if (a > na) return;
    const std::int64_t slot = (a - 1) + na * (b - 1);
    const std::int64_t cell = layout.face_index(face, a, b, to_halo);
    if (to_halo)
        field[cell] = buffer[slot];
    else
        buffer[slot] = field[cell];
}

__global__ void set_scalars_kernel(Scalars* s, Scalars value) { *s = value; }
__global__ void add_kernel(double* field, std::int64_t cell, double amount) { field[cell] += amount; }
__global__ void set_kernel(double* field, std::int64_t cell, double value) { field[cell] = value; }

class CudaCg final : public CgBackend {
public:
    CudaCg(const LocalExtent& local, int device)
        : device_(device), select_(device), local_(local), layout_(make_layout(local)), cells_(to_box(interior_box(local, FaceMask{}))) {
        const auto size = static_cast<std::size_t>(layout_.size());
        for (auto* vector : {&solution_, &b_, &x_, &r_, &p_, &q_}) {
            *vector = gpu::DeviceBuffer<double>(size);
            SHAKEDOWN_CUDA(cudaMemset(vector->get(), 0, vector->bytes()));  // halos: the zero boundary
        }
        for (int face = 0; face < 6; ++face) {
            const auto count = static_cast<std::size_t>(layout_.face_cells(face));
            device_send_[face] = gpu::DeviceBuffer<double>(count);
            device_receive_[face] = gpu::DeviceBuffer<double>(count);
            send_[face] = gpu::PinnedBuffer<double>(count);
            receive_[face] = gpu::PinnedBuffer<double>(count);
        }
        const dim3 grid = sum_grid_of(cells_);
        partials_ = gpu::DeviceBuffer<double>(static_cast<std::size_t>(grid.x) * grid.y * grid.z);
        SHAKEDOWN_CUDA(cudaDeviceSynchronize());
    }

    std::string name() const override { return "cuda"; }

    void load(const std::vector<double>& field) override {
        gpu::DeviceSelection select(device_);
        SHAKEDOWN_CUDA(cudaMemcpy(solution_.get(), field.data(), solution_.bytes(), cudaMemcpyHostToDevice));
        SHAKEDOWN_CUDA(cudaMemcpy(p_.get(), field.data(), p_.bytes(), cudaMemcpyHostToDevice));
        // A copy from pageable memory may return before its DMA lands, and it ran on the legacy
        // stream, which does not order our non-blocking one: without this the first SpMV (b = A x*)
        // read part of the old p (4 ranks sharing an H200: b off, error 0.05 with the residual 1e-15).
        SHAKEDOWN_CUDA(cudaDeviceSynchronize());
    }

    FaceBufferView send_buffer(int face) override { return {send_[face].get(), send_[face].size()}; }
    FaceBufferView receive_buffer(int face) override { return {receive_[face].get(), receive_[face].size()}; }

    // Complete on return on the host path: HaloExchange sends from the pinned buffers next.
    void pack(const FaceMask& faces) override {
        gpu::DeviceSelection select(device_);
        neighbours_ = faces;
        if (restore_) {  // a planted boundary value lasts one step
            set_kernel<<<1, 1, 0, stream_.get()>>>(p_.get(), *restore_, 0.0);
            SHAKEDOWN_CUDA_LAUNCH("cg restore launch");
            restore_.reset();
        }
        bool any = false;
        for (int face = 0; face < 6; ++face) {
            if (!faces[face]) continue;
            any = true;
            launch_face(face, /*to_halo=*/false);
            if (!on_device_)
                SHAKEDOWN_CUDA(cudaMemcpyAsync(send_[face].get(), device_send_[face].get(), send_[face].bytes(),
                                               cudaMemcpyDeviceToHost, stream_.get()));
        }
        if (pending_ && !any) {  // no neighbour: the boundary value beyond the low x face
            const std::int64_t at = layout_.face_index(0, layout_.ny / 2 + 1, layout_.nz / 2 + 1, /*halo=*/true);
            add_kernel<<<1, 1, 0, stream_.get()>>>(p_.get(), at, *pending_);
            SHAKEDOWN_CUDA_LAUNCH("cg corrupt launch");
            restore_ = at;
            pending_.reset();
        }
        if (any && !on_device_) stream_.synchronize();
    }

    void start_interior() override {
        gpu::DeviceSelection select(device_);
        spmv(interior_box(local_, neighbours_));
    }

    void unpack(const FaceMask& faces) override {
        gpu::DeviceSelection select(device_);
        bool any = false;
        for (int face = 0; face < 6; ++face) {
            if (!faces[face]) continue;
            any = true;
            if (!on_device_)
                SHAKEDOWN_CUDA(cudaMemcpyAsync(device_receive_[face].get(), receive_[face].get(), receive_[face].bytes(),
                                               cudaMemcpyHostToDevice, stream_.get()));
            launch_face(face, /*to_halo=*/true);
            if (pending_) {  // the first received face: one value off, as if corrupted in flight
                const std::int64_t at =
                    layout_.face_index(face, layout_.face_a(face) / 2 + 1, layout_.face_b(face) / 2 + 1, /*halo=*/true);
                add_kernel<<<1, 1, 0, stream_.get()>>>(p_.get(), at, *pending_);
                SHAKEDOWN_CUDA_LAUNCH("cg corrupt launch");
                pending_.reset();
            }
        }
        // The receive buffers are reused by the next step's MPI_Irecv: the copies must be done
        // (none without a neighbour: a rank alone queues its steps without waiting).
        if (any && !on_device_) stream_.synchronize();
    }

    void finish_step() override {
        gpu::DeviceSelection select(device_);
        for (const CellBox& box : shell_boxes(local_, neighbours_)) spmv(box);
    }

    void synchronize() override {
        gpu::DeviceSelection select(device_);
        stream_.synchronize();
    }

    void use_device_halo_exchange(MPI_Comm comm, const std::array<int, 6>& neighbour_ranks) override {
#ifdef SHAKEDOWN_KERNELS_HAVE_NCCL
        gpu::DeviceSelection select(device_);
        neighbour_ranks_ = neighbour_ranks;
        nccl_ = std::make_unique<gpu::NcclCommunicator>(comm, device_);
        on_device_ = true;
#else
        (void)comm;
        (void)neighbour_ranks;
        throw InputError("cg_fp64: halo_path nccl needs a build with NCCL; this one has none (use halo_path: host)");
#endif
    }
    bool exchanges_halos_on_device() const override { return on_device_; }

    void exchange(const FaceMask& faces) override {
#ifdef SHAKEDOWN_KERNELS_HAVE_NCCL
        gpu::DeviceSelection select(device_);
        if (!on_device_) return;
        exchange_faces_over_nccl(*nccl_, stream_.get(), neighbour_ranks_, faces, [this](int face, bool outgoing) {
            auto& buffer = outgoing ? device_send_[face] : device_receive_[face];
            return NcclFace{buffer.get(), buffer.size()};
        });
#else
        (void)faces;
#endif
    }

    std::vector<double> field() const override {
        gpu::DeviceSelection select(device_);
        stream_.synchronize();
        std::vector<double> out(static_cast<std::size_t>(layout_.size()));
        SHAKEDOWN_CUDA(cudaMemcpy(out.data(), x_.get(), x_.bytes(), cudaMemcpyDeviceToHost));
        return out;
    }

    void corrupt(std::size_t i, std::size_t j, std::size_t k) override {
        gpu::DeviceSelection select(device_);
        stream_.synchronize();
        const std::int64_t c = layout_.index(static_cast<std::int64_t>(i), static_cast<std::int64_t>(j), static_cast<std::int64_t>(k));
        set_kernel<<<1, 1, 0, stream_.get()>>>(x_.get(), c, -1.0e3);
        SHAKEDOWN_CUDA_LAUNCH("cg corrupt launch");
        stream_.synchronize();
    }

    void take_rhs() override { for_cells(Copy{q_.get(), b_.get()}); }
    double start_solve() override { return sum_cells(StartSolve{b_.get(), x_.get(), r_.get(), p_.get()}); }
    double dot_pq() override { return sum_cells(Dot{p_.get(), q_.get()}); }
    double update_xr(double alpha) override { return sum_cells(UpdateXR{alpha, p_.get(), q_.get(), x_.get(), r_.get()}); }
    void update_p(double beta) override { for_cells(UpdateP{beta, r_.get(), p_.get()}); }
    void p_from_x() override { for_cells(Copy{x_.get(), p_.get()}); }
    std::array<double, 2> residual_sums() override {
        return {sum_cells(SquaredDifference{b_.get(), q_.get()}), sum_cells(Dot{b_.get(), b_.get()})};
    }
    std::array<double, 2> error_sums() override {
        return {sum_cells(SquaredDifference{x_.get(), solution_.get()}), sum_cells(Dot{solution_.get(), solution_.get()})};
    }
    void corrupt_next_halo(double amount) override { pending_ = amount; }

    bool queues_iterations() const override { return true; }
    void queue_start(double bb, double tolerance) override {
        gpu::DeviceSelection select(device_);
        start_scalars_kernel<<<1, 1, 0, stream_.get()>>>(scalars_.get(), bb, tolerance);
        SHAKEDOWN_CUDA_LAUNCH("cg scalars launch");
        queued_ = true;
    }
    void queue_iteration() override {
        Scalars* s = scalars_.get();
        queue_sum(QueuedDot{s, p_.get(), q_.get()}, FinishPq{s});
        queue_sum(QueuedUpdateXR{s, p_.get(), q_.get(), x_.get(), r_.get()}, FinishRr{s});
        for_cells(QueuedUpdateP{s, r_.get(), p_.get()});
    }
    QueuedState queued_state() override {
        gpu::DeviceSelection select(device_);
        SHAKEDOWN_CUDA(cudaMemcpyAsync(host_scalars_.get(), scalars_.get(), sizeof(Scalars), cudaMemcpyDeviceToHost, stream_.get()));
        stream_.synchronize();
        const Scalars& s = *host_scalars_.get();
        return {static_cast<std::int64_t>(s.iterations), s.rr, s.stop != 0, s.breakdown != 0, s.pq};
    }
    void queue_end() override { queued_ = false; }

    // ---- Diagnostic: each kernel of one queued iteration timed alone (kernel_timing) ----------
    // The queued iterations' kernels (gated SpMV, QueuedDot, QueuedUpdateXR, QueuedUpdateP) on
    // scratch scalars that say alpha = beta = 0 and never stop; the finishing kernels store their
    // total (FinishPq/FinishRr would change alpha). One warm-up iteration first (lazy loading of
    // the new instantiations), then `iterations` with an event pair around every launch (each
    // behind an untimed one), then as many back to back under one pair. < 50 ms at 256^3.
    std::optional<KernelTimes> time_kernels(int iterations) override {
        gpu::DeviceSelection select(device_);
        const Scalars* s = diag_scalars_.get();
        const Scalars fixed{1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0, 0, 0};  // rr, bb, tolerance, pq, alpha, beta, ...
        set_scalars_kernel<<<1, 1, 0, stream_.get()>>>(diag_scalars_.get(), fixed);
        SHAKEDOWN_CUDA_LAUNCH("cg timing scalars launch");

        const auto volume = [](const CellBox& b) {
            return b.empty() ? 0.0 : static_cast<double>(b.hi[0] - b.lo[0]) * static_cast<double>(b.hi[1] - b.lo[1]) *
                                         static_cast<double>(b.hi[2] - b.lo[2]);
        };
        const double cells = static_cast<double>(layout_.nx) * static_cast<double>(layout_.ny) * static_cast<double>(layout_.nz);
        const double partial_bytes = 8.0 * static_cast<double>(partials_.size());
        double face_cells = 0.0;
        for (int face = 0; face < 6; ++face)
            if (neighbours_[face]) face_cells += static_cast<double>(layout_.face_cells(face));
        const CellBox interior = interior_box(local_, neighbours_);
        const std::array<CellBox, 6> shell = shell_boxes(local_, neighbours_);
        double shell_cells = 0.0;
        for (const CellBox& box : shell) shell_cells += volume(box);

        struct Launch {
            const char* name;
            double bytes;
            std::function<void()> run;
        };
        std::vector<Launch> launches;
        const FaceMask faces = neighbours_;
        if (face_cells > 0.0) {  // a face cell: 8 bytes read, 8 written, each way
            launches.push_back({"halo_pack", 16.0 * face_cells, [this, faces] {
                                    for (int face = 0; face < 6; ++face)
                                        if (faces[face]) launch_face(face, /*to_halo=*/false);
                                }});
            launches.push_back({"halo_unpack", 16.0 * face_cells, [this, faces] {
                                    for (int face = 0; face < 6; ++face)
                                        if (faces[face]) launch_face(face, /*to_halo=*/true);
                                }});
        }
        launches.push_back({"spmv", 16.0 * volume(interior), [this, interior, s] { spmv_gated(interior, s); }});  // p in, q out
        if (shell_cells > 0.0)
            launches.push_back({"spmv_shell", 16.0 * shell_cells, [this, shell, s] {
                                    for (const CellBox& box : shell) spmv_gated(box, s);
                                }});
        launches.push_back({"dot_pq", 16.0 * cells, [this, s] { launch_partials(QueuedDot{s, p_.get(), q_.get()}); }});
        launches.push_back({"dot_pq_finish", partial_bytes, [this] { launch_finish(StoreTotal{total_.get()}); }});
        launches.push_back({"update_xr", 48.0 * cells, [this, s] {  // x, p, r, q in; x, r out
                                launch_partials(QueuedUpdateXR{s, p_.get(), q_.get(), x_.get(), r_.get()});
                            }});
        launches.push_back({"update_xr_finish", partial_bytes, [this] { launch_finish(StoreTotal{total_.get()}); }});
        launches.push_back({"update_p", 24.0 * cells, [this, s] {  // r, p in; p out
                                for_cells(QueuedUpdateP{s, r_.get(), p_.get()});
                            }});

        KernelTimes times;
        for (const Launch& launch : launches) {
            times.names.emplace_back(launch.name);
            times.bytes.push_back(launch.bytes);
        }
        times.seconds.resize(launches.size());
        for (const Launch& launch : launches) launch.run();  // warm-up (loads the new instantiations)
        stream_.synchronize();
        std::vector<std::unique_ptr<gpu::CudaEvent>> starts, stops;
        for (std::size_t n = 0; n < launches.size(); ++n) {
            starts.push_back(std::make_unique<gpu::CudaEvent>());
            stops.push_back(std::make_unique<gpu::CudaEvent>());
        }
        for (int iteration = 0; iteration < iterations; ++iteration) {
            // An untimed iteration queued ahead keeps the GPU busy while the timed one is queued,
            // so the first timed kernel does not include its launch latency.
            for (const Launch& launch : launches) launch.run();
            for (std::size_t n = 0; n < launches.size(); ++n) {
                starts[n]->record(stream_.get());
                launches[n].run();
                stops[n]->record(stream_.get());
            }
            for (std::size_t n = 0; n < launches.size(); ++n) times.seconds[n].push_back(stops[n]->seconds_since(*starts[n]));
            times.span_s.push_back(stops.back()->seconds_since(*starts.front()));
        }
        gpu::EventTimer timer(stream_.get());
        timer.start();
        for (int iteration = 0; iteration < iterations; ++iteration)
            for (const Launch& launch : launches) launch.run();
        times.back_to_back_s = timer.stop_seconds() / std::max(iterations, 1);
        stream_.synchronize();
        return times;
    }

private:
    void spmv(const CellBox& cells) { spmv_gated(cells, queued_ ? scalars_.get() : nullptr); }
    void spmv_gated(const CellBox& cells, const Scalars* gate) {
        if (cells.empty()) return;
        const Box box = to_box(cells);
        spmv_kernel<<<sum_grid_of(box), row_threads, 0, stream_.get()>>>(p_.get(), q_.get(), layout_, box, gate);
        SHAKEDOWN_CUDA_LAUNCH("cg spmv launch");
    }

    template <class Op>
    void for_cells(const Op& op) {
        gpu::DeviceSelection select(device_);
        for_cells_kernel<<<grid_of(cells_), row_threads, 0, stream_.get()>>>(op, layout_, cells_);
        SHAKEDOWN_CUDA_LAUNCH("cg vector launch");
    }

    // This rank's sum over its cells handed to finish (on the device), queued only.
    template <class Op, class Finish>
    void queue_sum(const Op& op, const Finish& finish) {
        gpu::DeviceSelection select(device_);
        launch_partials(op);
        launch_finish(finish);
    }
    template <class Op>
    void launch_partials(const Op& op) {
        sum_cells_kernel<<<sum_grid_of(cells_), row_threads, 0, stream_.get()>>>(op, layout_, cells_, partials_.get());
        SHAKEDOWN_CUDA_LAUNCH("cg reduction launch");
    }
    template <class Finish>
    void launch_finish(const Finish& finish) {
        sum_partials_kernel<<<1, sum_threads, 0, stream_.get()>>>(partials_.get(), static_cast<std::int64_t>(partials_.size()), finish);
        SHAKEDOWN_CUDA_LAUNCH("cg reduction launch");
    }

    // This rank's sum over its cells; waits for it (the host needs it for the next kernels).
    template <class Op>
    double sum_cells(const Op& op) {
        gpu::DeviceSelection select(device_);
        queue_sum(op, StoreTotal{total_.get()});
        SHAKEDOWN_CUDA(cudaMemcpyAsync(host_total_.get(), total_.get(), sizeof(double), cudaMemcpyDeviceToHost, stream_.get()));
        stream_.synchronize();
        return *host_total_.get();
    }

    void launch_face(int face, bool to_halo) {
        const dim3 grid(static_cast<unsigned>((layout_.face_a(face) + row_threads - 1) / row_threads),
                        static_cast<unsigned>(layout_.face_b(face)));
        double* buffer = to_halo ? device_receive_[face].get() : device_send_[face].get();
        face_kernel<<<grid, row_threads, 0, stream_.get()>>>(p_.get(), buffer, layout_, face, to_halo);
        SHAKEDOWN_CUDA_LAUNCH("cg face launch");
    }

    int device_;
    gpu::DeviceSelection select_;  // everything below lives on `device_`
    LocalExtent local_;
    FieldLayout layout_;
    Box cells_;  // every cell of this rank's block
    FaceMask neighbours_{true, true, true, true, true, true};  // until pack() says otherwise
    gpu::DeviceBuffer<double> solution_, b_, x_, r_, p_, q_;
    gpu::DeviceBuffer<double> partials_;
    gpu::DeviceBuffer<double> total_{1};
    gpu::PinnedBuffer<double> host_total_{1};
    gpu::DeviceBuffer<Scalars> scalars_{1};
    gpu::PinnedBuffer<Scalars> host_scalars_{1};
    gpu::DeviceBuffer<Scalars> diag_scalars_{1};  // time_kernels' fixed alpha = beta = 0
    bool queued_ = false;  // between queue_start and queue_end: the SpMV stops with the scalars
    std::array<gpu::DeviceBuffer<double>, 6> device_send_, device_receive_;
    std::array<gpu::PinnedBuffer<double>, 6> send_, receive_;
    gpu::CudaStream stream_;
    std::optional<double> pending_;        // the planted fault, until a step takes it
    std::optional<std::int64_t> restore_;  // a planted boundary value to zero again
    // Device halo path: the neighbours' NCCL ranks and the communicator, declared last so that
    // it is finalized (its queued operations complete) before the buffers and the stream go.
    bool on_device_ = false;
    std::array<int, 6> neighbour_ranks_{};
#ifdef SHAKEDOWN_KERNELS_HAVE_NCCL
    std::unique_ptr<gpu::NcclCommunicator> nccl_;
#endif
};

}  // namespace

std::unique_ptr<CgBackend> make_cuda_cg(const LocalExtent& local, int device) { return std::make_unique<CudaCg>(local, device); }

bool cuda_cg_built() { return true; }

}  // namespace shakedown::kernels::cg
