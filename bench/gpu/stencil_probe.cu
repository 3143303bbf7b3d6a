// stencil_probe: a tuning probe for the GPU host, not part of shakedown's tests. It times the
// product's stencil3d CUDA kernels (kernels/stencil/stencil_kernels.cuh, included here: the
// z-march with one or two cells per thread, the shell slab, the x-face kernel) against a naive
// baseline ("old": 128x2x2 blocks, rows of n+2 doubles, 64-bit indices, an interior launch plus
// six shell launches per step) and candidates on one GPU, validates every variant against the
// baseline, and measures the product's triad and copy in the same run, so the product
// (kernels/stencil/stencil_cuda.cu) can take the best shape.
// Build (a CUDA build of shakedown): cmake --build build --target shakedown_stencil_probe
// Run: build/bench/gpu/shakedown_stencil_probe [n ...]   (interior cells per side; default
// 512 768; < 1 min; bench/gpu/make-bundle.sh packs it)
//
// Per variant: 3 warm-up steps, then 25 timed steps. Plain variants: each step between two
// CUDA events on one stream (no host synchronisation), Gcell/s from the median step. "+sync":
// host time of a step followed by a stream synchronisation (what a host wait per step costs).
// "queued": all 25 steps launched, one synchronisation, wall time / 25 (the product's 1-GPU
// step loop). Effective GB/s = Gcell/s x 16 B (read u, write v: the least a step must move;
// neighbours come from cache), the product's definition. "triad" and "copy" columns: that rate
// over the median triad and over the median copy of the product's STREAM kernels
// (kernels/stream/stream_kernels.cuh, launched with their stream_launch_table rows) at 2^28
// doubles per array, the product's bound. A "STREAM ceiling" table times copy and triad with
// other block sizes, double2 and grid-stride loops: the copy-like ceiling of the GPU, which the
// stencil (one read, one write per cell) cannot pass.
// "zmarch_i32_pad_*": the product's one-cell z-march (zmarch_kernel) in candidate shapes;
// "zmarch2_*": the probe's two-cells-per-thread candidates (see zmarch2_kernel).
// "product_pairs*": the product's pair kernel (zmarch_pairs_kernel), for any n (run an odd n
// too, e.g. 511) and on an x-cut block; the "queued breakdown" table splits the queued figure
// into host latency, step variance and a start-up transient (see queued_breakdown).
// "x_neighbour_emulated_old": a 2-GPU step cut along x (gather kernel, pinned copies, x slab,
// host sync), kept to compare; "z_neighbour_emulated_new": the product's 2-GPU step (z cut,
// pitched plane copies, one plane slab, pipelined through events, wall / steps); MPI replaced
// by zeros written into the pinned receive buffer. Their bitwise check shows the sequence
// computes the right cells; zeros in a zero halo cannot show an ordering fault, which the
// product's 2- and 4-rank runs validate.
// Validation: after all 28 steps each variant's field must equal the old kernel's result bit
// for bit over all interior cells (same update expression, same operand order); mismatches
// and the largest difference are printed. The old kernel's result itself is checked against
// the exact discrete solution lambda^28 u0 (relative 32 (T+2) eps, the product's tolerance).
#include "bench/gpu/probe_support.hpp"
#include "gpu/cuda_owners.hpp"
#include "kernels/stencil/stencil_kernels.cuh"
#include "kernels/stream/stream_kernels.cuh"
#include "kernels/stream/stream_launch.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace {

namespace gpu = shakedown::gpu;
namespace kernels = shakedown::kernels;  // the product's stencil and STREAM kernels
namespace probe = shakedown::probe;
using kernels::Box;
using kernels::jacobi_update;

constexpr int warm_steps = 3;
constexpr int timed_steps = 25;
constexpr double bytes_per_cell = kernels::stencil_bytes_per_cell;  // read u, write v: 16 B

// A field with one halo layer: element (i, j, k) at base[i + px j + plane k], i = 0..n+1.
// Padded: px a multiple of 16 and base 15 elements into the allocation, so cell i = 1 of
// every row starts a 128-byte line.
struct Layout {
    long long n = 0, px = 0, py = 0, plane = 0, offset = 0, elements = 0;
    bool padded = false;
};
Layout make_layout(long long n, bool padded) {
    Layout l;
    l.n = n;
    l.padded = padded;
    l.px = padded ? (n + 2 + 15) / 16 * 16 : n + 2;
    l.py = n + 2;
    l.plane = l.px * l.py;
    l.offset = padded ? 15 : 0;
    l.elements = l.offset + l.plane * (n + 2) + 16;
    return l;
}

struct Field {
    gpu::DeviceBuffer<double> alloc;
    double* base = nullptr;
    Layout layout;
    explicit Field(const Layout& l) : alloc(static_cast<std::size_t>(l.elements)), base(alloc.get() + l.offset), layout(l) {}
};

__device__ double mode(long long i, long long n) { return sin(3.141592653589793 * double(i) / double(n + 1)); }

__global__ void init_kernel(double* base, Layout l) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long j = blockIdx.y, k = blockIdx.z;
    if (i > l.n + 1) return;
    const bool inside = i >= 1 && i <= l.n && j >= 1 && j <= l.n && k >= 1 && k <= l.n;
    base[i + l.px * j + l.plane * k] = inside ? mode(i, l.n) * mode(j, l.n) * mode(k, l.n) : 0.0;
}
void init_field(Field& f) {
    SHAKEDOWN_CUDA(cudaMemset(f.alloc.get(), 0, f.alloc.bytes()));
    const long long w = f.layout.n + 2;
    init_kernel<<<dim3(unsigned((w + 255) / 256), unsigned(w), unsigned(w)), 256>>>(f.base, f.layout);
    SHAKEDOWN_CUDA_LAUNCH("init kernel");
    // The memset and the kernel run on the legacy stream, which does not order the
    // non-blocking streams the steps run on: without this wait the first steps race the
    // initialisation (at 768^3 every field came out one step behind: max rel error
    // 6.26e-6 = 1 - lambda, and "mismatches" in every variant).
    SHAKEDOWN_CUDA(cudaDeviceSynchronize());
}

struct Compare {
    unsigned long long mismatches;
    unsigned long long max_diff_bits;  // a non-negative double's bits order like the double
    unsigned long long max_exact_bits;
};
__global__ void compare_kernel(const double* a, Layout la, const double* b, Layout lb, double amplitude, Compare* out) {
    const long long i = 1 + blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long j = 1 + blockIdx.y, k = 1 + blockIdx.z;
    if (i > la.n) return;
    const double x = a[i + la.px * j + la.plane * k];
    if (b) {
        const double y = b[i + lb.px * j + lb.plane * k];
        if (__double_as_longlong(x) != __double_as_longlong(y)) {
            atomicAdd(&out->mismatches, 1ull);
            atomicMax(&out->max_diff_bits, (unsigned long long)__double_as_longlong(fabs(x - y)));
        }
    } else {  // against the exact discrete solution amplitude * u0
        const double exact = amplitude * mode(i, la.n) * mode(j, la.n) * mode(k, la.n);
        atomicMax(&out->max_exact_bits, (unsigned long long)__double_as_longlong(fabs(x - exact)));
    }
}
Compare compare(const Field& a, const Field* b, double amplitude) {
    gpu::DeviceBuffer<Compare> d(1);
    SHAKEDOWN_CUDA(cudaMemset(d.get(), 0, d.bytes()));
    const long long n = a.layout.n;
    compare_kernel<<<dim3(unsigned((n + 255) / 256), unsigned(n), unsigned(n)), 256>>>(
        a.base, a.layout, b ? b->base : nullptr, b ? b->layout : a.layout, amplitude, d.get());
    SHAKEDOWN_CUDA_LAUNCH("compare kernel");
    Compare h{};
    SHAKEDOWN_CUDA(cudaMemcpy(&h, d.get(), sizeof(Compare), cudaMemcpyDeviceToHost));
    return h;
}
double bits_to_double(unsigned long long bits) {
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}

// ---- the baseline: one thread per cell, 128x2x2 blocks, unpadded rows, 64-bit indices ----
struct OldExtent {
    unsigned long long nx, ny, nz;
    __host__ __device__ unsigned long long index(unsigned long long i, unsigned long long j, unsigned long long k) const {
        return i + (nx + 2) * (j + (ny + 2) * k);
    }
};
struct OldBox {
    unsigned long long lo[3], hi[3];
};
__global__ void old_kernel(const double* __restrict__ u, double* __restrict__ v, OldExtent e, OldBox box) {
    const unsigned long long i = box.lo[0] + blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
    const unsigned long long j = box.lo[1] + blockIdx.y * static_cast<unsigned long long>(blockDim.y) + threadIdx.y;
    const unsigned long long k = box.lo[2] + blockIdx.z * static_cast<unsigned long long>(blockDim.z) + threadIdx.z;
    if (i >= box.hi[0] || j >= box.hi[1] || k >= box.hi[2]) return;
    const unsigned long long c = e.index(i, j, k);
    const unsigned long long sy = e.nx + 2, sz = (e.nx + 2) * (e.ny + 2);
    v[c] = jacobi_update(u[c], u[c - 1], u[c + 1], u[c - sy], u[c + sy], u[c - sz], u[c + sz]);
}
void old_launch(const double* u, double* v, long long n, OldBox box, cudaStream_t s) {
    if (box.lo[0] >= box.hi[0] || box.lo[1] >= box.hi[1] || box.lo[2] >= box.hi[2]) return;
    const dim3 block(128, 2, 2);
    const dim3 grid(unsigned((box.hi[0] - box.lo[0] + 127) / 128), unsigned((box.hi[1] - box.lo[1] + 1) / 2),
                    unsigned((box.hi[2] - box.lo[2] + 1) / 2));
    const OldExtent e{(unsigned long long)n, (unsigned long long)n, (unsigned long long)n};
    old_kernel<<<grid, block, 0, s>>>(u, v, e, box);
}
// Interior 2..n-1 and six disjoint shell slabs (kernels/stencil/stencil_boxes.cpp).
void old_step(const double* u, double* v, long long n, bool shells, cudaStream_t s) {
    const unsigned long long N = n;
    if (!shells) {
        old_launch(u, v, n, OldBox{{1, 1, 1}, {N + 1, N + 1, N + 1}}, s);
        return;
    }
    old_launch(u, v, n, OldBox{{2, 2, 2}, {N, N, N}}, s);
    for (int d = 0; d < 3; ++d)
        for (int side = 0; side < 2; ++side) {
            OldBox b{};
            for (int e = 0; e < 3; ++e) {
                if (e < d) { b.lo[e] = 2; b.hi[e] = N; }
                else { b.lo[e] = 1; b.hi[e] = N + 1; }
            }
            b.lo[d] = side == 0 ? 1 : N;
            b.hi[d] = side == 0 ? 2 : N + 1;
            old_launch(u, v, n, b, s);
        }
}

// ---- candidates ----
// One thread per cell, any block shape; x tiles start at cell 1 (a line start when padded).
template <typename Index>
__global__ void cell_kernel(const double* __restrict__ u, double* __restrict__ v, Index px, Index plane, Box box) {
    const int i = 1 + blockIdx.x * blockDim.x + threadIdx.x;
    const int j = box.lo[1] + blockIdx.y * blockDim.y + threadIdx.y;
    const int k = box.lo[2] + blockIdx.z * blockDim.z + threadIdx.z;
    if (i < box.lo[0] || i >= box.hi[0] || j >= box.hi[1] || k >= box.hi[2]) return;
    const Index c = Index(i) + px * Index(j) + plane * Index(k);
    v[c] = jacobi_update(u[c], u[c - 1], u[c + 1], u[c - px], u[c + px], u[c - plane], u[c + plane]);
}

// The z-march with two adjacent x cells per thread: cells (i, i+1), i odd, are one 16-byte
// aligned pair on padded rows (base 15 elements into a 128-byte aligned allocation, pitches
// multiples of 16), loaded and stored as double2: half the load/store instructions of the
// scalar z-march for the same bytes. x neighbours: the other cell of the pair, and i-1 / i+2
// either loaded (L1 hits) or, with `shuffle`, taken from the next lanes' pairs (the warp's
// outer lanes and lanes before the box end load). Needs an even number of x cells from 1
// (the probe's whole field) and, with `shuffle`, blockDim.x a multiple of 32 (a warp is one
// row segment, so rows past the box leave whole warps). Same operand order: bitwise equal.
__device__ __forceinline__ double2 load2(const double* p) { return *reinterpret_cast<const double2*>(p); }
template <bool shuffle>
__global__ void zmarch2_kernel(const double* __restrict__ u, double* __restrict__ v, int px, int plane, Box box, int chunk) {
    const int i = 1 + 2 * int(blockIdx.x * blockDim.x + threadIdx.x);
    const int j = box.lo[1] + blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= box.hi[1]) return;
    const bool active = i < box.hi[0];
    if (!shuffle && !active) return;
    const int lane = threadIdx.x & 31;
    const bool load_right = lane == 31 || i + 2 >= box.hi[0];
    const int k_begin = box.lo[2] + blockIdx.z * chunk;
    const int k_end = min(k_begin + chunk, box.hi[2]);
    int c = i + px * j + plane * k_begin;
    const double2 zero = make_double2(0.0, 0.0);
    double2 below = active ? load2(u + c - plane) : zero, at = active ? load2(u + c) : zero;
#pragma unroll 4
    for (int k = k_begin; k < k_end; ++k) {
        const double2 above = active ? load2(u + c + plane) : zero;
        const double2 ym = active ? load2(u + c - px) : zero, yp = active ? load2(u + c + px) : zero;
        double left, right;
        if constexpr (shuffle) {
            left = __shfl_up_sync(0xffffffffu, at.y, 1);
            right = __shfl_down_sync(0xffffffffu, at.x, 1);
            if (active && lane == 0) left = u[c - 1];
            if (active && load_right) right = u[c + 2];
        } else {
            left = u[c - 1];
            right = u[c + 2];
        }
        if (active) {
            double2 next;
            next.x = jacobi_update(at.x, left, at.y, ym.x, yp.x, below.x, above.x);
            next.y = jacobi_update(at.y, at.x, right, ym.y, yp.y, below.y, above.y);
            *reinterpret_cast<double2*>(v + c) = next;
        }
        below = at;
        at = above;
        c += plane;
    }
}

struct Shape {
    int x, y, z;  // z: block depth for cell kernels, planes per block (0 = all) for z-march
};

using Step = std::function<void(const double*, double*, const Layout&, cudaStream_t)>;
struct Variant {
    std::string name;
    bool padded;
    Step step;
    bool even_only = false;
};

Box whole(const Layout& l) { return Box{{1, 1, 1}, {int(l.n) + 1, int(l.n) + 1, int(l.n) + 1}}; }

template <typename Index>
Step cell_step(Shape s) {
    return [s](const double* u, double* v, const Layout& l, cudaStream_t st) {
        const Box b = whole(l);
        const dim3 grid(unsigned((l.n + s.x - 1) / s.x), unsigned((l.n + s.y - 1) / s.y), unsigned((l.n + s.z - 1) / s.z));
        cell_kernel<Index><<<grid, dim3(s.x, s.y, s.z), 0, st>>>(u, v, Index(l.px), Index(l.plane), b);
    };
}
// The product's one-cell z-march over the whole field.
template <typename Index>
Step zmarch_step(Shape s) {
    return [s](const double* u, double* v, const Layout& l, cudaStream_t st) {
        const Box b = whole(l);
        const int chunk = s.z > 0 ? s.z : int(l.n);
        const dim3 grid(unsigned((l.n + s.x - 1) / s.x), unsigned((l.n + s.y - 1) / s.y), unsigned((l.n + chunk - 1) / chunk));
        kernels::zmarch_kernel<Index><<<grid, dim3(s.x, s.y), 0, st>>>(u, v, Index(l.px), Index(l.plane), b, chunk);
    };
}

template <bool shuffle>
Step zmarch2_step(Shape s) {  // s.x threads = 2 s.x cells along x
    return [s](const double* u, double* v, const Layout& l, cudaStream_t st) {
        const Box b = whole(l);
        const int chunk = s.z > 0 ? s.z : int(l.n);
        const long long pairs = l.n / 2;
        const dim3 grid(unsigned((pairs + s.x - 1) / s.x), unsigned((l.n + s.y - 1) / s.y), unsigned((l.n + chunk - 1) / chunk));
        zmarch2_kernel<shuffle><<<grid, dim3(s.x, s.y), 0, st>>>(u, v, int(l.px), int(l.plane), b, chunk);
    };
}

// The product's pair kernel over the whole field (any n, odd too), or, with `x_cut`, over
// the interior of a block with neighbours on both x faces (cells 2..n-1: the pair (1,2)
// computes only cell 2, and for even n the pair (n-1,n) only n-1) and the two x slabs
// after it with the product's slab kernel: the partial-pair paths, checked bitwise.
Step product_pairs_step(Shape s, bool x_cut) {
    return [s, x_cut](const double* u, double* v, const Layout& l, cudaStream_t st) {
        const int n = int(l.n);
        const Box b = x_cut ? Box{{2, 1, 1}, {n, n + 1, n + 1}} : whole(l);
        const int chunk = s.z > 0 ? s.z : n;
        const dim3 grid(unsigned((b.hi[0] / 2 + s.x - 1) / s.x), unsigned((n + s.y - 1) / s.y), unsigned((n + chunk - 1) / chunk));
        kernels::zmarch_pairs_kernel<int><<<grid, dim3(s.x, s.y), 0, st>>>(u, v, int(l.px), int(l.plane), b, chunk);
        if (x_cut)
            for (const int x : {1, n}) {
                const Box slab{{x, 1, 1}, {x + 1, n + 1, n + 1}};
                kernels::slab_kernel<int>
                    <<<unsigned((l.n * l.n + 255) / 256), 256, 0, st>>>(u, v, int(l.px), int(l.plane), slab);
            }
    };
}

std::string shape_name(const char* kind, Shape s, const char* extra = "") {
    char buf[96];
    if (s.z > 0) std::snprintf(buf, sizeof buf, "%s_%dx%dx%d%s", kind, s.x, s.y, s.z, extra);
    else std::snprintf(buf, sizeof buf, "%s_%dx%dxall%s", kind, s.x, s.y, extra);
    return buf;
}

// Settled, so not in the list (H200, bench/gpu/stencil_probe): one thread per cell peaks at 0.737
// of triad; in the z-march unroll 4 ~= 1 > 8, streaming stores and 256x8 launch bounds are
// worse, 64-bit indices equal, padding needed (the product's z-march: unroll 4, plain stores).
// The list keeps the z-march around its best (chunks 4-32 over three tiles) and the
// two-cells-per-thread candidates.
// Variants flagged `even_only` need an even n (whole pairs).
std::vector<Variant> candidates() {
    std::vector<Variant> v;
    v.push_back({"old_128x2x2_one_launch", false, [](const double* u, double* w, const Layout& l, cudaStream_t s) { old_step(u, w, l.n, false, s); }});
    v.push_back({shape_name("cell_i32_pad", Shape{128, 4, 1}), true, cell_step<int>(Shape{128, 4, 1})});
    for (const Shape xy : {Shape{32, 4, 0}, Shape{32, 8, 0}, Shape{64, 4, 0}})
        for (const int chunk : {32, 16, 8, 4}) {
            const Shape s{xy.x, xy.y, chunk};
            v.push_back({shape_name("zmarch_i32_pad", s), true, zmarch_step<int>(s)});
        }
    // Two cells per thread: the shape counts threads (x cells = 2 x threads).
    for (const Shape xy : {Shape{32, 4, 0}, Shape{32, 8, 0}, Shape{64, 4, 0}, Shape{32, 2, 0}})
        for (const int chunk : {16, 8, 4}) {
            const Shape s{xy.x, xy.y, chunk};
            v.push_back({shape_name("zmarch2_ld_pad", s), true, zmarch2_step<false>(s), true});
            v.push_back({shape_name("zmarch2_shfl_pad", s), true, zmarch2_step<true>(s), true});
        }
    return v;
}

// The one-cell z-march's best shapes, also timed with a host synchronisation after every step,
// to show what that costs.
std::vector<std::string> synced_names() {
    return {"zmarch_i32_pad_32x8x32", "zmarch_i32_pad_32x4x8"};
}

struct Timing {
    double step_s;  // median
    int final_in_u; // after the steps the newest field is u (1) or v (0)
};
// Events: median of per-step CUDA event intervals, no host wait. host_synced: median host
// time of a step followed by a stream synchronisation. queued: all timed steps launched,
// one synchronisation, wall time / steps (the product's 1-GPU timing).
enum class Timed { events, host_synced, queued };
Timing run_steps(const Step& step, Field& u, Field& v, cudaStream_t s, Timed mode) {
    const bool host_synced = mode == Timed::host_synced;
    double* a = u.base;
    double* b = v.base;
    for (int t = 0; t < warm_steps; ++t) {
        step(a, b, u.layout, s);
        std::swap(a, b);
    }
    SHAKEDOWN_CUDA_LAUNCH("warm-up steps");
    SHAKEDOWN_CUDA(cudaStreamSynchronize(s));
    if (mode == Timed::queued) {
        const auto start = std::chrono::steady_clock::now();
        for (int t = 0; t < timed_steps; ++t) {
            step(a, b, u.layout, s);
            std::swap(a, b);
        }
        SHAKEDOWN_CUDA(cudaStreamSynchronize(s));
        SHAKEDOWN_CUDA_LAUNCH("queued steps");
        return {std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / timed_steps, a == u.base ? 1 : 0};
    }
    std::vector<gpu::CudaEvent> ev(timed_steps + 1);
    std::vector<double> times;
    ev[0].record(s);
    for (int t = 0; t < timed_steps; ++t) {
        const auto start = std::chrono::steady_clock::now();
        step(a, b, u.layout, s);
        std::swap(a, b);
        ev[t + 1].record(s);
        if (host_synced) {
            SHAKEDOWN_CUDA(cudaStreamSynchronize(s));
            times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
    }
    SHAKEDOWN_CUDA_LAUNCH("timed steps");
    SHAKEDOWN_CUDA(cudaStreamSynchronize(s));
    if (!host_synced)
        for (int t = 0; t < timed_steps; ++t) times.push_back(ev[t + 1].seconds_since(ev[t]));
    return {probe::median(times), a == u.base ? 1 : 0};
}

// Where the queued time goes (the "queued" figure came out 0.849 of triad for the pair kernel
// at 512^3 where its event median was 0.894: H200). The steps are queued as in Timed::queued, with
// an event after each (events between kernels of one stream add no gap: compare the events
// column with the span), then one wait. wall: host time from before the first launch until
// the wait returns (the queued figure); span: first to last event, the GPU time of all steps
// without the first launch's latency and the wait's wake-up; mean step = span / steps against
// the median shows slow steps; the first steps over the median show a start-up transient
// (clocks ramping after the idle host work between variants), which weighs 4 x more in 25
// steps than in the product's 100.
struct Breakdown {
    double wall_s = 0, span_s = 0, median_s = 0, max_s = 0;
    std::vector<double> first;  // first steps' times
    int slow = 0;               // steps over 1.05 x the median
};
Breakdown queued_breakdown(const Step& step, Field& u, Field& v, cudaStream_t s, int steps) {
    double* a = u.base;
    double* b = v.base;
    for (int t = 0; t < warm_steps; ++t) {
        step(a, b, u.layout, s);
        std::swap(a, b);
    }
    SHAKEDOWN_CUDA(cudaStreamSynchronize(s));
    std::vector<gpu::CudaEvent> ev(steps + 1);
    const auto start = std::chrono::steady_clock::now();
    ev[0].record(s);
    for (int t = 0; t < steps; ++t) {
        step(a, b, u.layout, s);
        std::swap(a, b);
        ev[t + 1].record(s);
    }
    SHAKEDOWN_CUDA(cudaStreamSynchronize(s));
    Breakdown r;
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    SHAKEDOWN_CUDA_LAUNCH("queued steps");
    std::vector<double> times;
    for (int t = 0; t < steps; ++t) times.push_back(ev[t + 1].seconds_since(ev[t]));
    r.span_s = ev[steps].seconds_since(ev[0]);
    r.median_s = probe::median(times);
    r.max_s = *std::max_element(times.begin(), times.end());
    for (int t = 0; t < steps && t < 4; ++t) r.first.push_back(times[t]);
    for (const double t : times) r.slow += t > 1.05 * r.median_s ? 1 : 0;
    return r;
}
void print_breakdown(const std::string& name, long long n, int steps, const Breakdown& b, double triad_gbs) {
    const double cells = double(n) * n * n;
    auto fraction = [&](double step_s) { return cells / step_s * bytes_per_cell * 1e-9 / triad_gbs; };
    std::printf("%-34s %5lld %5d %7.3f %7.3f %7.3f %8.1f %6.2f  %3d   ", name.c_str(), n, steps, fraction(b.wall_s / steps),
                fraction(b.span_s / steps), fraction(b.median_s), (b.wall_s - b.span_s) * 1e6, b.max_s / b.median_s, b.slow);
    for (const double t : b.first) std::printf(" %.2f", t / b.median_s);
    std::printf("\n");
    std::fflush(stdout);
}

// A step cut along x (the product cuts 2 ranks along z, below; kept to compare): a neighbour
// beyond the high x face, the MPI message replaced by zeros written into the pinned receive
// buffer (a neighbour holding the boundary value, so the answer stays the 1-GPU answer): the
// product's x-face gather kernel + copy to pinned memory on a high-priority stream queued
// before the interior, host waits for the send buffer, copy back + scatter kernel, the x slab
// after an event, stream synchronisation.
Timing run_emulated_neighbour(Shape s, Field& u, Field& v) {
    const Layout& l = u.layout;
    const long long n = l.n;
    const kernels::DeviceLayout device_layout{n, n, n, l.px, l.plane};
    gpu::CudaStream compute;
    cudaStream_t halo;
    int least = 0, greatest = 0;
    SHAKEDOWN_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    SHAKEDOWN_CUDA(cudaStreamCreateWithPriority(&halo, cudaStreamNonBlocking, greatest));
    gpu::CudaEvent unpacked;
    const size_t face_cells = size_t(n) * n, face_bytes = face_cells * sizeof(double);
    gpu::DeviceBuffer<double> face(face_cells);
    gpu::PinnedBuffer<double> send(face_cells), receive(face_cells);
    const Box inner{{1, 1, 1}, {int(n), int(n) + 1, int(n) + 1}};
    const Box slab{{int(n), 1, 1}, {int(n) + 1, int(n) + 1, int(n) + 1}};
    const int chunk = s.z > 0 ? s.z : int(n);
    const dim3 grid(unsigned((n + s.x - 1) / s.x), unsigned((n + s.y - 1) / s.y), unsigned((n + chunk - 1) / chunk));
    const dim3 face_grid(unsigned((n + 31) / 32), unsigned((n + 7) / 8));
    double* a = u.base;
    double* b = v.base;
    std::vector<double> times;
    for (int t = 0; t < warm_steps + timed_steps; ++t) {
        const auto start = std::chrono::steady_clock::now();
        kernels::x_face_kernel<<<face_grid, dim3(32, 8), 0, halo>>>(a, face.get(), device_layout, n, true);
        SHAKEDOWN_CUDA(cudaMemcpyAsync(send.get(), face.get(), face_bytes, cudaMemcpyDeviceToHost, halo));
        kernels::zmarch_kernel<int><<<grid, dim3(s.x, s.y), 0, compute.get()>>>(a, b, int(l.px), int(l.plane), inner, chunk);
        SHAKEDOWN_CUDA(cudaStreamSynchronize(halo));
        std::memset(receive.get(), 0, face_bytes);  // "MPI": the neighbour's boundary layer arrives
        SHAKEDOWN_CUDA(cudaMemcpyAsync(face.get(), receive.get(), face_bytes, cudaMemcpyHostToDevice, halo));
        kernels::x_face_kernel<<<face_grid, dim3(32, 8), 0, halo>>>(a, face.get(), device_layout, n + 1, false);
        unpacked.record(halo);
        SHAKEDOWN_CUDA(cudaStreamWaitEvent(compute.get(), unpacked.get(), 0));
        kernels::slab_kernel<int>
            <<<unsigned((n * n + 255) / 256), 256, 0, compute.get()>>>(a, b, int(l.px), int(l.plane), slab);
        compute.synchronize();
        std::swap(a, b);
        if (t >= warm_steps) times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    SHAKEDOWN_CUDA_LAUNCH("x-cut steps");
    SHAKEDOWN_CUDA(cudaStreamDestroy(halo));
    return {probe::median(times), a == u.base ? 1 : 0};
}

// The product's 2-GPU step (decomposition along z; neighbour beyond the high z face), MPI
// replaced by zeros written into the pinned receive buffer as above. Per step: halo stream
// waits for the previous step (event), one pitched copy of plane k = n to pinned memory (no
// kernel); interior k = 1..n-1 queued on the compute stream (one-cell z-march, or with `pairs`
// the pair kernel); host waits for the send buffer, "receives" into one of two alternating
// buffers, pitched copy into plane n+1, event; the compute stream waits for it, runs the plane
// k = n (one coalesced slab) and records the step's event. No host wait at the end of a step:
// the next interior queues behind this slab. Time: wall time of the timed steps / steps.
Timing run_emulated_z_neighbour(Shape s, bool pairs, Field& u, Field& v) {
    const Layout& l = u.layout;
    const long long n = l.n;
    gpu::CudaStream compute;
    cudaStream_t halo;
    int least = 0, greatest = 0;
    SHAKEDOWN_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    SHAKEDOWN_CUDA(cudaStreamCreateWithPriority(&halo, cudaStreamNonBlocking, greatest));
    gpu::CudaEvent unpacked, step_done;
    const size_t face_cells = size_t(n) * n;
    const size_t width = size_t(n) * sizeof(double), face_bytes = width * n, pitch = size_t(l.px) * sizeof(double);
    gpu::PinnedBuffer<double> send(face_cells);
    gpu::PinnedBuffer<double> receive[2] = {gpu::PinnedBuffer<double>(face_cells), gpu::PinnedBuffer<double>(face_cells)};
    const Box inner{{1, 1, 1}, {int(n) + 1, int(n) + 1, int(n)}};
    const Box slab{{1, 1, int(n)}, {int(n) + 1, int(n) + 1, int(n) + 1}};
    const int chunk = s.z > 0 ? s.z : int(n);
    const long long x_items = pairs ? (n + 1) / 2 : n;  // as the product: pairs from cell 1 up to the box end
    const dim3 grid(unsigned((x_items + s.x - 1) / s.x), unsigned((n + s.y - 1) / s.y), unsigned((n - 1 + chunk - 1) / chunk));
    double* a = u.base;
    double* b = v.base;
    int parity = 0;
    auto start = std::chrono::steady_clock::now();
    for (int t = 0; t < warm_steps + timed_steps; ++t) {
        if (t == warm_steps) {
            compute.synchronize();
            start = std::chrono::steady_clock::now();
        }
        SHAKEDOWN_CUDA(cudaStreamWaitEvent(halo, step_done.get(), 0));
        SHAKEDOWN_CUDA(cudaMemcpy2DAsync(send.get(), width, a + 1 + l.px + l.plane * n, pitch, width, n,
                                         cudaMemcpyDeviceToHost, halo));
        if (pairs)
            kernels::zmarch_pairs_kernel<int>
                <<<grid, dim3(s.x, s.y), 0, compute.get()>>>(a, b, int(l.px), int(l.plane), inner, chunk);
        else
            kernels::zmarch_kernel<int>
                <<<grid, dim3(s.x, s.y), 0, compute.get()>>>(a, b, int(l.px), int(l.plane), inner, chunk);
        SHAKEDOWN_CUDA(cudaStreamSynchronize(halo));
        std::memset(receive[parity].get(), 0, face_bytes);  // "MPI": the neighbour's boundary layer arrives
        SHAKEDOWN_CUDA(cudaMemcpy2DAsync(a + 1 + l.px + l.plane * (n + 1), pitch, receive[parity].get(), width, width, n,
                                         cudaMemcpyHostToDevice, halo));
        unpacked.record(halo);
        SHAKEDOWN_CUDA(cudaStreamWaitEvent(compute.get(), unpacked.get(), 0));
        kernels::slab_kernel<int>
            <<<unsigned((n * n + 255) / 256), 256, 0, compute.get()>>>(a, b, int(l.px), int(l.plane), slab);
        step_done.record(compute.get());
        std::swap(a, b);
        parity ^= 1;
    }
    compute.synchronize();
    const double step_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / timed_steps;
    SHAKEDOWN_CUDA_LAUNCH("z-cut steps");
    SHAKEDOWN_CUDA(cudaStreamDestroy(halo));
    return {step_s, a == u.base ? 1 : 0};
}

// ---- STREAM reference: the product's copy and triad, each launched with its table row ----
// One element per thread in blocks of 256: the ceiling table's other candidates.
__global__ void triad_kernel(double* a, const double* b, const double* c, double s, size_t n) {
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) a[i] = b[i] + s * c[i];
}
__global__ void copy_kernel(const double* a, double* c, size_t n) {
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) c[i] = a[i];
}
__global__ void fill_kernel(double* a, double value, size_t n) {
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) a[i] = value;
}
// The product's element-wise kernel Op with the stream_launch_table row of `kernel`, on the
// legacy stream, over the product's arrays (copy: c = a; triad: a = b + s c).
template <class Op>
void launch_product(kernels::StreamKernel kernel, int sms, double* a, double* b, double* c, size_t n) {
    const kernels::StreamLaunchShape& shape = kernels::launch_shape(kernel);
    kernels::launch_elementwise<Op>(shape, static_cast<unsigned>(kernels::launch_blocks(shape, n, sms)), nullptr, a, b, c,
                                    n);
}
std::string product_shape(kernels::StreamKernel kernel, size_t n, int sms) {
    return kernels::describe(kernels::launch_shape(kernel), n, sms);
}
// Median seconds of 20 launches after 2 warm-ups, each between two events on the legacy stream.
double median_launch_s(const std::function<void()>& launch) {
    gpu::EventTimer timer(nullptr);
    std::vector<double> t;
    for (int r = 0; r < 22; ++r) {
        timer.start();
        launch();
        const double seconds = timer.stop_seconds();
        if (r >= 2) t.push_back(seconds);
    }
    SHAKEDOWN_CUDA_LAUNCH("STREAM launches");
    return probe::median(t);
}
struct StreamRef {
    double triad_gbs, copy_gbs;
    bool valid;
};
StreamRef measure_stream(int sms) {
    const size_t n = size_t(1) << 28;  // 2 GiB per array, the product's bound size
    gpu::DeviceBuffer<double> a(n), b(n), c(n);
    const unsigned blocks = unsigned((n + 255) / 256);
    // 0.4 x 0.5 is exact: triad's value is the same with or without a fused multiply-add.
    fill_kernel<<<blocks, 256>>>(a.get(), 0.5, n);
    fill_kernel<<<blocks, 256>>>(b.get(), 0.25, n);
    fill_kernel<<<blocks, 256>>>(c.get(), 0.0, n);
    SHAKEDOWN_CUDA_LAUNCH("fill kernel");
    const double copy_s = median_launch_s(  // c = a = 0.5
        [&] { launch_product<kernels::CopyOp>(kernels::StreamKernel::copy, sms, a.get(), b.get(), c.get(), n); });
    const double triad_s = median_launch_s(  // a = 0.25 + 0.4 x 0.5
        [&] { launch_product<kernels::TriadOp>(kernels::StreamKernel::triad, sms, a.get(), b.get(), c.get(), n); });
    bool valid = true;
    for (const size_t at : {size_t(0), n / 3, n - 1}) {
        double ha = 0, hc = 0;
        SHAKEDOWN_CUDA(cudaMemcpy(&ha, a.get() + at, 8, cudaMemcpyDeviceToHost));
        SHAKEDOWN_CUDA(cudaMemcpy(&hc, c.get() + at, 8, cudaMemcpyDeviceToHost));
        valid = valid && ha == 0.25 + kernels::stream_scalar * 0.5 && hc == 0.5;
    }
    return {3.0 * 8.0 * n / triad_s * 1e-9, 2.0 * 8.0 * n / copy_s * 1e-9, valid};
}

// Where the copy-like ceiling of this GPU is: the product's copy and triad beside other shapes
// (one element per thread in blocks of 256 ran copy at 0.885 of triad on an H200; BabelStream's
// anchor copy ran at 0.93 of triad with blocks of 1024). Variants: block size, double2 per
// thread, grid-stride (2 blocks of 1024 per SM); each result array is zeroed first and checked
// at 4 places.
__global__ void copy2_kernel(const double2* a, double2* c, size_t n2) {
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n2) c[i] = a[i];
}
__global__ void copy2_grid_stride_kernel(const double2* a, double2* c, size_t n2) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n2; i += size_t(gridDim.x) * blockDim.x) c[i] = a[i];
}
__global__ void triad2_kernel(double2* a, const double2* b, const double2* c, double s, size_t n2) {
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n2) {
        const double2 x = b[i], y = c[i];
        a[i] = make_double2(x.x + s * y.x, x.y + s * y.y);
    }
}
void print_stream_ceiling(const StreamRef& ref, int sms) {
    const size_t n = size_t(1) << 28, n2 = n / 2;
    gpu::DeviceBuffer<double> da(n), db(n), dc(n);
    double* a = da.get();
    double* b = db.get();
    double* c = dc.get();
    fill_kernel<<<unsigned(n / 256), 256>>>(b, 0.2, n);
    fill_kernel<<<unsigned(n / 256), 256>>>(c, 0.5, n);  // 0.4 x 0.5 is exact (see measure_stream)
    SHAKEDOWN_CUDA_LAUNCH("fill kernel");
    struct Case {
        const char* name;
        bool triad;
        std::function<void()> launch;
    };
    // Every case writes a from b (copy) or from b and c (triad); the product's copy writes its
    // third array from its first.
    const std::vector<Case> cases = {
        {"copy_product_row", false, [&] { launch_product<kernels::CopyOp>(kernels::StreamKernel::copy, sms, b, c, a, n); }},
        {"copy_1x256", false, [&] { copy_kernel<<<unsigned(n / 256), 256>>>(b, a, n); }},
        {"copy_1x1024", false, [&] { copy_kernel<<<unsigned(n / 1024), 1024>>>(b, a, n); }},
        {"copy_double2x256", false, [&] { copy2_kernel<<<unsigned(n2 / 256), 256>>>((const double2*)b, (double2*)a, n2); }},
        {"copy_double2x1024", false,
         [&] { copy2_kernel<<<unsigned(n2 / 1024), 1024>>>((const double2*)b, (double2*)a, n2); }},
        {"copy_double2_gridstride_2x1024/SM", false,
         [&] { copy2_grid_stride_kernel<<<unsigned(2 * sms), 1024>>>((const double2*)b, (double2*)a, n2); }},
        {"triad_product_row", true,
         [&] { launch_product<kernels::TriadOp>(kernels::StreamKernel::triad, sms, a, b, c, n); }},
        {"triad_1x256", true, [&] { triad_kernel<<<unsigned(n / 256), 256>>>(a, b, c, 0.4, n); }},
        {"triad_1x1024", true, [&] { triad_kernel<<<unsigned(n / 1024), 1024>>>(a, b, c, 0.4, n); }},
        {"triad_double2x256", true,
         [&] { triad2_kernel<<<unsigned(n2 / 256), 256>>>((double2*)a, (const double2*)b, (const double2*)c, 0.4, n2); }},
    };
    std::printf("\n%-40s %9s %7s %7s  %s\n", "STREAM ceiling (2^28 doubles/array)", "GB/s", "/triad", "/copy", "check");
    for (const Case& k : cases) {
        SHAKEDOWN_CUDA(cudaMemset(a, 0, n * 8));
        const double seconds = median_launch_s(k.launch);
        const double expected = k.triad ? 0.2 + 0.4 * 0.5 : 0.2;
        bool ok = true;
        for (const size_t at : {size_t(0), n / 3, n / 2 + 1, n - 1}) {
            double h = 0;
            SHAKEDOWN_CUDA(cudaMemcpy(&h, a + at, 8, cudaMemcpyDeviceToHost));
            ok = ok && h == expected;
        }
        const double gbs = (k.triad ? 3.0 : 2.0) * 8.0 * n / seconds * 1e-9;
        std::printf("%-40s %9.1f %7.3f %7.3f  %s\n", k.name, gbs, gbs / ref.triad_gbs, gbs / ref.copy_gbs, ok ? "ok" : "WRONG VALUES");
    }
}

void print_line(const std::string& name, long long n, double step_s, const StreamRef& ref, const char* check) {
    const double gcells = double(n) * n * n / step_s * 1e-9;
    const double gbs = gcells * bytes_per_cell;
    std::printf("%-40s %5lld %9.2f %9.1f %7.3f %7.3f  %s\n", name.c_str(), n, gcells, gbs, gbs / ref.triad_gbs, gbs / ref.copy_gbs, check);
    std::fflush(stdout);
}

int run(int argc, char** argv) {
    std::vector<long long> sizes;
    for (int a = 1; a < argc; ++a) sizes.push_back(std::atoll(argv[a]));
    if (sizes.empty()) sizes = {512, 768};
    for (const long long n : sizes)
        if (n < 4 || n > 1200) {  // 32-bit indices hold up to ~1290^3 padded; keep a margin
            std::printf("size %lld outside 4..1200\n", n);
            return 2;
        }
    cudaDeviceProp prop{};
    SHAKEDOWN_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("stencil_probe on %s (%d SMs), %d warm-up + %d timed steps per variant, median step\n", prop.name,
                prop.multiProcessorCount, warm_steps, timed_steps);

    const int sms = prop.multiProcessorCount;
    const StreamRef ref = measure_stream(sms);
    constexpr size_t stream_n = size_t(1) << 28;
    std::printf(
        "reference: the product's triad %.1f GB/s (%s), copy %.1f GB/s (%s); 2^28 doubles per array, median of 20%s\n",
        ref.triad_gbs, product_shape(kernels::StreamKernel::triad, stream_n, sms).c_str(), ref.copy_gbs,
        product_shape(kernels::StreamKernel::copy, stream_n, sms).c_str(), ref.valid ? "" : "  STREAM VALIDATION FAILED");
    print_stream_ceiling(ref, sms);

    gpu::CudaStream compute;
    cudaStream_t stream = compute.get();
    const std::vector<Variant> variants = candidates();
    const std::vector<std::string> synced = synced_names();
    int failures = ref.valid ? 0 : 1;

    for (const long long n : sizes) {
        std::printf("\n%-40s %5s %9s %9s %7s %7s  %s\n", "variant", "n", "Gcell/s", "eff_GB/s", "/triad", "/copy", "check");
        // Reference result: the old kernel with its interior + 6 shell launches.
        Field ou(make_layout(n, false)), ov(make_layout(n, false)), reference(make_layout(n, false));
        init_field(ou);
        init_field(ov);
        const Step old_shells = [](const double* u, double* v, const Layout& l, cudaStream_t s) { old_step(u, v, l.n, true, s); };
        const Timing old_t = run_steps(old_shells, ou, ov, stream, Timed::events);
        const Field& old_result = old_t.final_in_u ? ou : ov;
        SHAKEDOWN_CUDA(cudaMemcpy(reference.alloc.get(), old_result.alloc.get(), reference.alloc.bytes(),
                                  cudaMemcpyDeviceToDevice));
        const double cs = std::cos(3.141592653589793 / double(n + 1));
        const double lambda = 0.25 * (1.0 + 3.0 * cs);
        const int total_steps = warm_steps + timed_steps;
        const double amplitude = std::pow(lambda, total_steps);
        const double exact_error = bits_to_double(compare(reference, nullptr, amplitude).max_exact_bits) / amplitude;
        const double tolerance = 32.0 * (total_steps + 2) * 2.220446049250313e-16;
        char check[160];
        std::snprintf(check, sizeof check, "exact solution: max rel error %.3g (tolerance %.3g) %s", exact_error, tolerance,
                      exact_error <= tolerance ? "ok" : "FAILED");
        if (!(exact_error <= tolerance)) ++failures;
        print_line("old_128x2x2_shells (baseline)", n, old_t.step_s, ref, check);

        Field pu(make_layout(n, true)), pv(make_layout(n, true));
        using Runner = std::function<Timing(Field&, Field&)>;
        std::string best_name;
        double best_s = 1e30;
        auto run_variant = [&](const std::string& name, bool padded, const Runner& runner) {
            Field& u = padded ? pu : ou;
            Field& v = padded ? pv : ov;
            init_field(u);
            init_field(v);
            const Timing t = runner(u, v);
            const Compare c = compare(t.final_in_u ? u : v, &reference, 0.0);
            char line[160];
            if (c.mismatches == 0) std::snprintf(line, sizeof line, "bitwise equal to old");
            else {
                std::snprintf(line, sizeof line, "MISMATCH: %llu cells differ, max |diff| %.3g", c.mismatches, bits_to_double(c.max_diff_bits));
                ++failures;
            }
            print_line(name, n, t.step_s, ref, line);
            if (c.mismatches == 0 && t.step_s < best_s) {
                best_s = t.step_s;
                best_name = name;
            }
        };
        auto timed = [&](const Step& step, Timed mode) { return [&, step, mode](Field& u, Field& v) { return run_steps(step, u, v, stream, mode); }; };
        for (const Variant& v : variants)
            if (!v.even_only || n % 2 == 0) run_variant(v.name, v.padded, timed(v.step, Timed::events));
        std::printf("%-40s %5lld  %s\n", "best (events, one GPU)", n, best_name.c_str());
        // The product's pair kernel, any n: whole field, and an x-cut block
        // (partial pairs at both ends + two x slabs), bitwise against the old kernel.
        for (const Shape s : {Shape{32, 8, 8}, Shape{32, 4, 8}}) {
            run_variant(shape_name("product_pairs", s), true, timed(product_pairs_step(s, false), Timed::events));
            run_variant(shape_name("product_pairs_xcut", s), true, timed(product_pairs_step(s, true), Timed::events));
        }
        run_variant(shape_name("product_pairs_queued", Shape{32, 8, 8}), true, timed(product_pairs_step(Shape{32, 8, 8}, false), Timed::queued));
        // Queued timing decomposed (timing only: the kernels are validated above).
        std::printf("\n%-34s %5s %5s %7s %7s %7s %8s %6s  %3s   %s\n", "queued breakdown (/triad)", "n", "steps", "wall", "span",
                    "median", "wall-span_us", "max/med", "slow", "first steps / median");
        for (const int steps : {25, 100}) {
            const Shape one{32, 4, 8}, two{32, 8, 8};
            init_field(pu);
            init_field(pv);
            print_breakdown(shape_name("one_cell", one), n, steps,
                            queued_breakdown(zmarch_step<int>(one), pu, pv, stream, steps), ref.triad_gbs);
            init_field(pu);
            init_field(pv);
            print_breakdown(shape_name("product_pairs", two), n, steps, queued_breakdown(product_pairs_step(two, false), pu, pv, stream, steps), ref.triad_gbs);
        }
        {  // back to back without an idle gap: the second run starts with warm clocks
            const Shape two{32, 8, 8};
            init_field(pu);
            init_field(pv);
            queued_breakdown(product_pairs_step(two, false), pu, pv, stream, 100);
            print_breakdown(shape_name("product_pairs_after_100", two), n, 25, queued_breakdown(product_pairs_step(two, false), pu, pv, stream, 25), ref.triad_gbs);
        }
        std::printf("\n");
        for (const std::string& name : synced)
            for (const Variant& v : variants)
                if (v.name == name) run_variant(v.name + "+sync", v.padded, timed(v.step, Timed::host_synced));
        // The product's one-cell z-march (gpu_cells_per_thread: 1) in the product's 1-GPU step loop:
        // steps queued, one wait (its default, two cells per thread, is product_pairs_queued above).
        for (const Shape s : {Shape{32, 4, 8}, Shape{32, 8, 32}})
            run_variant(shape_name("product_1gpu_queued", s), true, timed(zmarch_step<int>(s), Timed::queued));
        if (n % 2 == 0)
            for (const Shape s : {Shape{32, 4, 8}, Shape{32, 8, 8}})
                run_variant(shape_name("zmarch2_shfl_queued", s), true, timed(zmarch2_step<true>(s), Timed::queued));
        // 2-GPU steps emulated on this GPU: an x cut with a host sync per step, and the product's
        // z cut (pitched copies, pipelined) with one and with two cells per thread.
        {
            const Shape s{32, 8, 32};
            run_variant(shape_name("x_neighbour_emulated_old", s), true, [s](Field& u, Field& v) { return run_emulated_neighbour(s, u, v); });
        }
        for (const Shape s : {Shape{32, 4, 8}, Shape{32, 8, 16}})
            run_variant(shape_name("z_neighbour_emulated_new", s), true,
                        [s](Field& u, Field& v) { return run_emulated_z_neighbour(s, false, u, v); });
        for (const Shape s : {Shape{32, 4, 8}, Shape{32, 8, 8}})
            run_variant(shape_name("z_neighbour_emulated_new_pairs", s), true,
                        [s](Field& u, Field& v) { return run_emulated_z_neighbour(s, true, u, v); });
    }
    std::printf("\n%s\n", failures == 0 ? "all variants validated" : "VALIDATION FAILURES above");
    return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& error) {  // a GpuError names the failed call, file and line
        std::printf("FAILED: %s\n", error.what());
        return 1;
    }
}
