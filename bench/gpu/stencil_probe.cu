// stencil_probe: a tuning probe for the GPU host, not part of shakedown's tests. It times the
// stencil3d CUDA kernel as it was first shipped (128x2x2 blocks, rows of n+2 doubles, 64-bit
// indices, an interior launch plus six shell launches per step) against the z-march the
// product uses now and candidates on one GPU, validates every candidate against it, and
// measures triad and copy in the same run, so the product (kernels/cuda/stencil_cuda.cu) can
// take the best shape. Build (here or there):
//   nvcc -O3 -arch=sm_90 -std=c++17 bench/gpu/stencil_probe.cu -o .device-rt/stencil_probe
// Run: .device-rt/stencil_probe [n ...]   (interior cells per side; default 512 768; < 1 min)
//
// Per variant: 3 warm-up steps, then 25 timed steps. Plain variants: each step between two
// CUDA events on one stream (no host synchronisation), Gcell/s from the median step. "+sync":
// host time of a step followed by a stream synchronisation (the product's step loop until
// 2026-11-30). "queued": all 25 steps launched, one synchronisation, wall time / 25 (the
// product's 1-GPU loop now). Effective GB/s = Gcell/s x 16 B (read u, write v: the least a
// step must move; neighbours come from cache), the product's definition. "triad" and "copy"
// columns: that rate over the median triad (2^28 doubles per array, blocks of 256, the
// product's bound) and over the median copy (same arrays). A "STREAM ceiling" table times
// copy and triad with other block sizes, double2 and grid-stride loops: the copy-like
// ceiling of the GPU, which the stencil (one read, one write per cell) cannot pass.
// "zmarch2_*": two adjacent x cells per thread, double2 loads/stores (see zmarch2_kernel).
// "product_pairs*": the product's pair kernel (a copy of kernels/cuda/stencil_cuda.cu's
// zmarch_pairs_kernel), for any n (run an odd n too, e.g. 511) and on an x-cut block; the
// "queued breakdown" table splits the queued figure into host latency, step variance and a
// start-up transient (see queued_breakdown).
// "x_neighbour_emulated_old": the product's first 2-GPU step (x cut; gather kernel, pinned
// copies, x slab, host sync), "z_neighbour_emulated_new": the product's 2-GPU step now (z cut,
// pitched plane copies, one plane slab, pipelined through events, wall / steps); MPI replaced
// by zeros written into the pinned receive buffer. Their bitwise check shows the sequence
// computes the right cells; zeros in a zero halo cannot show an ordering fault, which the
// product's 2- and 4-rank runs validate.
// Validation: after all 28 steps each variant's field must equal the old kernel's result bit
// for bit over all interior cells (same update expression, same operand order); mismatches
// and the largest difference are printed. The old kernel's result itself is checked against
// the exact discrete solution lambda^28 u0 (relative 32 (T+2) eps, the product's tolerance).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#define CHECK(x)                                                                              \
    do {                                                                                      \
        cudaError_t e_ = (x);                                                                 \
        if (e_ != cudaSuccess) {                                                              \
            std::printf("FAILED %s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__);    \
            std::exit(1);                                                                     \
        }                                                                                     \
    } while (0)

namespace {

constexpr int warm_steps = 3;
constexpr int timed_steps = 25;
constexpr double bytes_per_cell = 16.0;

// The product's update (kernels/stencil/stencil_update.hpp), same operand order.
__host__ __device__ inline double jacobi_update(double c, double xm, double xp, double ym, double yp, double zm, double zp) {
    return 0.25 * c + 0.125 * (((((xm + xp) + ym) + yp) + zm) + zp);
}

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
    double* alloc = nullptr;
    double* base = nullptr;
    Layout layout;
    explicit Field(const Layout& l) : layout(l) {
        CHECK(cudaMalloc(&alloc, l.elements * sizeof(double)));
        base = alloc + l.offset;
    }
    ~Field() { cudaFree(alloc); }
    Field(const Field&) = delete;
    Field& operator=(const Field&) = delete;
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
    CHECK(cudaMemset(f.alloc, 0, f.layout.elements * sizeof(double)));
    const long long w = f.layout.n + 2;
    init_kernel<<<dim3(unsigned((w + 255) / 256), unsigned(w), unsigned(w)), 256>>>(f.base, f.layout);
    CHECK(cudaGetLastError());
    // The memset and the kernel run on the legacy stream, which does not order the
    // non-blocking streams the steps run on: without this wait the first steps raced the
    // initialisation (at 768^3 an init landed after step 1, every field came out one step
    // behind: max rel error 6.26e-6 = 1 - lambda, and the "mismatches" of every variant).
    CHECK(cudaDeviceSynchronize());
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
    Compare* d = nullptr;
    CHECK(cudaMalloc(&d, sizeof(Compare)));
    CHECK(cudaMemset(d, 0, sizeof(Compare)));
    const long long n = a.layout.n;
    compare_kernel<<<dim3(unsigned((n + 255) / 256), unsigned(n), unsigned(n)), 256>>>(
        a.base, a.layout, b ? b->base : nullptr, b ? b->layout : a.layout, amplitude, d);
    CHECK(cudaGetLastError());
    Compare h{};
    CHECK(cudaMemcpy(&h, d, sizeof(Compare), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d));
    return h;
}
double bits_to_double(unsigned long long bits) {
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}

// ---- the kernel as it was (kernels/cuda/stencil_cuda.cu before this probe) ----
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
struct Box {
    int lo[3], hi[3];
};

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

// The z-march (the product's kernel, kept identical): a 2-D block over x-y; each thread
// walks `chunk` planes along z keeping the cells below, at and above in registers, so each
// step reads one new plane; x and y neighbours come from L1/L2.
template <typename Index, int unroll, bool streaming_store>
__device__ __forceinline__ void zmarch_body(const double* __restrict__ u, double* __restrict__ v, Index px, Index plane, Box box, int chunk) {
    const int i = 1 + blockIdx.x * blockDim.x + threadIdx.x;
    const int j = box.lo[1] + blockIdx.y * blockDim.y + threadIdx.y;
    if (i < box.lo[0] || i >= box.hi[0] || j >= box.hi[1]) return;
    const int k_begin = box.lo[2] + blockIdx.z * chunk;
    const int k_end = min(k_begin + chunk, box.hi[2]);
    Index c = Index(i) + px * Index(j) + plane * Index(k_begin);
    double below = u[c - plane], at = u[c];
#pragma unroll unroll
    for (int k = k_begin; k < k_end; ++k) {
        const double above = u[c + plane];
        const double next = jacobi_update(at, u[c - 1], u[c + 1], u[c - px], u[c + px], below, above);
        if constexpr (streaming_store) __stcs(v + c, next);
        else v[c] = next;
        below = at;
        at = above;
        c += plane;
    }
}
template <typename Index, int unroll, bool streaming_store>
__global__ void zmarch_kernel(const double* __restrict__ u, double* __restrict__ v, Index px, Index plane, Box box, int chunk) {
    zmarch_body<Index, unroll, streaming_store>(u, v, px, plane, box, chunk);
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

// A shell slab, one thread per cell counted i fastest (the product's slab_kernel).
__global__ void slab_kernel(const double* __restrict__ u, double* __restrict__ v, int row, int plane, Box box) {
    const unsigned ex = box.hi[0] - box.lo[0], ey = box.hi[1] - box.lo[1], ez = box.hi[2] - box.lo[2];
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ex * ey * ez) return;
    const int i = box.lo[0] + t % ex, j = box.lo[1] + (t / ex) % ey, k = box.lo[2] + t / (ex * ey);
    const int c = i + row * j + plane * k;
    v[c] = jacobi_update(u[c], u[c - 1], u[c + 1], u[c - row], u[c + row], u[c - plane], u[c + plane]);
}
// The product's two-cells-per-thread z-march (kernels/cuda/stencil_cuda.cu:
// zmarch_pairs_kernel, kept identical; int indices): zmarch2_kernel<true> generalised to
// boxes of any x extent (a pair half outside the box loads both cells, stores its inside
// cell; a lane whose neighbour lane holds no cell of the box loads that x neighbour).
__global__ void product_pairs_kernel(const double* __restrict__ u, double* __restrict__ v, int row, int plane, Box box, int chunk) {
    const int i = 1 + 2 * static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int j = box.lo[1] + blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= box.hi[1]) return;  // whole warps
    const bool first_inside = i >= box.lo[0] && i < box.hi[0];
    const bool second_inside = i + 1 >= box.lo[0] && i + 1 < box.hi[0];
    const bool loads = first_inside || second_inside;
    const int lane = threadIdx.x & 31;
    const bool load_left = first_inside && (lane == 0 || i - 1 < box.lo[0]);
    const bool load_right = second_inside && (lane == 31 || i + 2 >= box.hi[0]);
    const int k_begin = box.lo[2] + blockIdx.z * chunk;
    const int k_end = min(k_begin + chunk, box.hi[2]);
    int c = i + row * j + plane * k_begin;
    const double2 zero = make_double2(0.0, 0.0);
    const auto load2 = [&](int offset) { return loads ? *reinterpret_cast<const double2*>(u + offset) : zero; };
    double2 below = load2(c - plane), at = load2(c);
#pragma unroll 4
    for (int k = k_begin; k < k_end; ++k) {
        const double2 above = load2(c + plane);
        const double2 ym = load2(c - row), yp = load2(c + row);
        double left = __shfl_up_sync(0xffffffffu, at.y, 1);
        double right = __shfl_down_sync(0xffffffffu, at.x, 1);
        if (load_left) left = u[c - 1];
        if (load_right) right = u[c + 2];
        double2 next;
        next.x = jacobi_update(at.x, left, at.y, ym.x, yp.x, below.x, above.x);
        next.y = jacobi_update(at.y, at.x, right, ym.y, yp.y, below.y, above.y);
        if (first_inside && second_inside)
            *reinterpret_cast<double2*>(v + c) = next;
        else if (first_inside)
            v[c] = next.x;
        else if (second_inside)
            v[c + 1] = next.y;
        below = at;
        at = above;
        c += plane;
    }
}

// Layer i = layer <-> face buffer (j fastest), as the product's face_kernel for an x face.
__global__ void x_face_kernel(double* u, double* buffer, Layout l, long long layer, bool into_buffer) {
    const long long a = blockIdx.x * (long long)blockDim.x + threadIdx.x, b = blockIdx.y * (long long)blockDim.y + threadIdx.y;
    if (a >= l.n || b >= l.n) return;
    const long long c = layer + l.px * (a + 1) + l.plane * (b + 1);
    if (into_buffer) buffer[a + l.n * b] = u[c];
    else u[c] = buffer[a + l.n * b];
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
template <typename Index, int unroll, bool streaming>
Step zmarch_step(Shape s) {
    return [s](const double* u, double* v, const Layout& l, cudaStream_t st) {
        const Box b = whole(l);
        const int chunk = s.z > 0 ? s.z : int(l.n);
        const dim3 grid(unsigned((l.n + s.x - 1) / s.x), unsigned((l.n + s.y - 1) / s.y), unsigned((l.n + chunk - 1) / chunk));
        zmarch_kernel<Index, unroll, streaming><<<grid, dim3(s.x, s.y), 0, st>>>(u, v, Index(l.px), Index(l.plane), b, chunk);
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
        product_pairs_kernel<<<grid, dim3(s.x, s.y), 0, st>>>(u, v, int(l.px), int(l.plane), b, chunk);
        if (x_cut)
            for (const int x : {1, n}) {
                const Box slab{{x, 1, 1}, {x + 1, n + 1, n + 1}};
                slab_kernel<<<unsigned((l.n * l.n + 255) / 256), 256, 0, st>>>(u, v, int(l.px), int(l.plane), slab);
            }
    };
}

std::string shape_name(const char* kind, Shape s, const char* extra = "") {
    char buf[96];
    if (s.z > 0) std::snprintf(buf, sizeof buf, "%s_%dx%dx%d%s", kind, s.x, s.y, s.z, extra);
    else std::snprintf(buf, sizeof buf, "%s_%dx%dxall%s", kind, s.x, s.y, extra);
    return buf;
}

// The 09:28 run (/work/.device/1/stencil.txt) settled the one-thread-per-cell shapes (best
// 0.737 of triad), unroll 1/4/8 (4 ~= 1 > 8), streaming stores and 256x8 launch bounds
// (worse), 64-bit indices (equal) and padding (needed); the list now keeps the z-march around
// its best (chunks 4-32 over three tiles) and adds the two-cells-per-thread z-march.
// Variants flagged `even_only` need an even n (whole pairs).
std::vector<Variant> candidates() {
    std::vector<Variant> v;
    v.push_back({"old_128x2x2_one_launch", false, [](const double* u, double* w, const Layout& l, cudaStream_t s) { old_step(u, w, l.n, false, s); }});
    v.push_back({shape_name("cell_i32_pad", Shape{128, 4, 1}), true, cell_step<int>(Shape{128, 4, 1})});
    for (const Shape xy : {Shape{32, 4, 0}, Shape{32, 8, 0}, Shape{64, 4, 0}})
        for (const int chunk : {32, 16, 8, 4}) {
            const Shape s{xy.x, xy.y, chunk};
            v.push_back({shape_name("zmarch_i32_pad", s), true, zmarch_step<int, 4, false>(s)});
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

// The product's z-march default and its neighbours, also timed with a host synchronisation
// after every step (the product's step loop), to show what that costs.
std::vector<std::string> synced_names() {
    return {"zmarch_i32_pad_32x8x32", "zmarch_i32_pad_32x4x8"};
}

double median(std::vector<double> t) {
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

struct Timing {
    double step_s;  // median
    int final_in_u; // after the steps the newest field is u (1) or v (0)
};
// Events: median of per-step CUDA event intervals, no host wait. host_synced: median host
// time of a step followed by a stream synchronisation. queued: all timed steps launched,
// one synchronisation, wall time / steps (the product's 1-GPU timing since 2026-11-30).
enum class Timed { events, host_synced, queued };
Timing run_steps(const Step& step, Field& u, Field& v, cudaStream_t s, Timed mode) {
    const bool host_synced = mode == Timed::host_synced;
    double* a = u.base;
    double* b = v.base;
    for (int t = 0; t < warm_steps; ++t) {
        step(a, b, u.layout, s);
        std::swap(a, b);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s));
    std::vector<cudaEvent_t> ev(timed_steps + 1);
    for (auto& e : ev) CHECK(cudaEventCreate(&e));
    std::vector<double> times;
    if (mode == Timed::queued) {
        const auto start = std::chrono::steady_clock::now();
        for (int t = 0; t < timed_steps; ++t) {
            step(a, b, u.layout, s);
            std::swap(a, b);
        }
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaGetLastError());
        for (auto& e : ev) CHECK(cudaEventDestroy(e));
        return {std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / timed_steps, a == u.base ? 1 : 0};
    }
    CHECK(cudaEventRecord(ev[0], s));
    for (int t = 0; t < timed_steps; ++t) {
        const auto start = std::chrono::steady_clock::now();
        step(a, b, u.layout, s);
        std::swap(a, b);
        CHECK(cudaEventRecord(ev[t + 1], s));
        if (host_synced) {
            CHECK(cudaStreamSynchronize(s));
            times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
    }
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s));
    if (!host_synced)
        for (int t = 0; t < timed_steps; ++t) {
            float ms = 0;
            CHECK(cudaEventElapsedTime(&ms, ev[t], ev[t + 1]));
            times.push_back(ms * 1e-3);
        }
    for (auto& e : ev) CHECK(cudaEventDestroy(e));
    return {median(times), a == u.base ? 1 : 0};
}

// Where the queued time goes (the "queued" figure came out 0.849 of triad for the pair kernel
// at 512^3 where its event median was 0.894). The steps are queued as in Timed::queued, with
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
    CHECK(cudaStreamSynchronize(s));
    std::vector<cudaEvent_t> ev(steps + 1);
    for (auto& e : ev) CHECK(cudaEventCreate(&e));
    const auto start = std::chrono::steady_clock::now();
    CHECK(cudaEventRecord(ev[0], s));
    for (int t = 0; t < steps; ++t) {
        step(a, b, u.layout, s);
        std::swap(a, b);
        CHECK(cudaEventRecord(ev[t + 1], s));
    }
    CHECK(cudaStreamSynchronize(s));
    Breakdown r;
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(cudaGetLastError());
    std::vector<double> times;
    for (int t = 0; t < steps; ++t) {
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, ev[t], ev[t + 1]));
        times.push_back(ms * 1e-3);
    }
    float span_ms = 0;
    CHECK(cudaEventElapsedTime(&span_ms, ev[0], ev[steps]));
    for (auto& e : ev) CHECK(cudaEventDestroy(e));
    r.span_s = span_ms * 1e-3;
    r.median_s = median(times);
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

// The product's step with a neighbour beyond the high x face (the 2-GPU split), the MPI
// message replaced by zeros written into the pinned receive buffer (a neighbour holding the
// boundary value, so the answer stays the 1-GPU answer): gather kernel + copy to pinned
// memory on a high-priority stream queued before the interior, host waits for the send
// buffer, copy back + scatter kernel, the x slab after an event, stream synchronisation.
Timing run_emulated_neighbour(Shape s, Field& u, Field& v) {
    const Layout& l = u.layout;
    const long long n = l.n;
    cudaStream_t compute, halo;
    int least = 0, greatest = 0;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithPriority(&halo, cudaStreamNonBlocking, greatest));
    cudaEvent_t unpacked;
    CHECK(cudaEventCreateWithFlags(&unpacked, cudaEventDisableTiming));
    double *face = nullptr, *send = nullptr, *receive = nullptr;
    const size_t face_bytes = size_t(n) * n * sizeof(double);
    CHECK(cudaMalloc(&face, face_bytes));
    CHECK(cudaMallocHost(&send, face_bytes));
    CHECK(cudaMallocHost(&receive, face_bytes));
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
        x_face_kernel<<<face_grid, dim3(32, 8), 0, halo>>>(a, face, l, n, true);
        CHECK(cudaMemcpyAsync(send, face, face_bytes, cudaMemcpyDeviceToHost, halo));
        zmarch_kernel<int, 4, false><<<grid, dim3(s.x, s.y), 0, compute>>>(a, b, int(l.px), int(l.plane), inner, chunk);
        CHECK(cudaStreamSynchronize(halo));
        std::memset(receive, 0, face_bytes);  // "MPI": the neighbour's boundary layer arrives
        CHECK(cudaMemcpyAsync(face, receive, face_bytes, cudaMemcpyHostToDevice, halo));
        x_face_kernel<<<face_grid, dim3(32, 8), 0, halo>>>(a, face, l, n + 1, false);
        CHECK(cudaEventRecord(unpacked, halo));
        CHECK(cudaStreamWaitEvent(compute, unpacked, 0));
        slab_kernel<<<unsigned((n * n + 255) / 256), 256, 0, compute>>>(a, b, int(l.px), int(l.plane), slab);
        CHECK(cudaStreamSynchronize(compute));
        std::swap(a, b);
        if (t >= warm_steps) times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    CHECK(cudaGetLastError());
    CHECK(cudaFreeHost(send));
    CHECK(cudaFreeHost(receive));
    CHECK(cudaFree(face));
    CHECK(cudaEventDestroy(unpacked));
    CHECK(cudaStreamDestroy(halo));
    CHECK(cudaStreamDestroy(compute));
    return {median(times), a == u.base ? 1 : 0};
}

// The product's 2-GPU step since 2026-11-30 (decomposition along z; neighbour beyond the
// high z face), MPI replaced by zeros written into the pinned receive buffer as above. Per
// step: halo stream waits for the previous step (event), one pitched copy of plane k = n
// to pinned memory (no kernel); interior k = 1..n-1 queued on the compute stream; host
// waits for the send buffer, "receives" into one of two alternating buffers, pitched copy
// into plane n+1, event; the compute stream waits for it, runs the plane k = n (one
// coalesced slab) and records the step's event. No host wait at the end of a step: the
// next interior queues behind this slab. Time: wall time of the timed steps / steps.
Timing run_emulated_z_neighbour(Shape s, bool pairs, Field& u, Field& v) {
    const Layout& l = u.layout;
    const long long n = l.n;
    cudaStream_t compute, halo;
    int least = 0, greatest = 0;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithPriority(&halo, cudaStreamNonBlocking, greatest));
    cudaEvent_t unpacked, step_done;
    CHECK(cudaEventCreateWithFlags(&unpacked, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&step_done, cudaEventDisableTiming));
    double *send = nullptr, *receive[2] = {nullptr, nullptr};
    const size_t width = size_t(n) * sizeof(double), face_bytes = width * n, pitch = size_t(l.px) * sizeof(double);
    CHECK(cudaMallocHost(&send, face_bytes));
    for (auto& r : receive) CHECK(cudaMallocHost(&r, face_bytes));
    const Box inner{{1, 1, 1}, {int(n) + 1, int(n) + 1, int(n)}};
    const Box slab{{1, 1, int(n)}, {int(n) + 1, int(n) + 1, int(n) + 1}};
    const int chunk = s.z > 0 ? s.z : int(n);
    const long long x_items = pairs ? n / 2 : n;
    const dim3 grid(unsigned((x_items + s.x - 1) / s.x), unsigned((n + s.y - 1) / s.y), unsigned((n - 1 + chunk - 1) / chunk));
    double* a = u.base;
    double* b = v.base;
    int parity = 0;
    auto start = std::chrono::steady_clock::now();
    for (int t = 0; t < warm_steps + timed_steps; ++t) {
        if (t == warm_steps) {
            CHECK(cudaStreamSynchronize(compute));
            start = std::chrono::steady_clock::now();
        }
        CHECK(cudaStreamWaitEvent(halo, step_done, 0));
        CHECK(cudaMemcpy2DAsync(send, width, a + 1 + l.px + l.plane * n, pitch, width, n, cudaMemcpyDeviceToHost, halo));
        if (pairs) zmarch2_kernel<true><<<grid, dim3(s.x, s.y), 0, compute>>>(a, b, int(l.px), int(l.plane), inner, chunk);
        else zmarch_kernel<int, 4, false><<<grid, dim3(s.x, s.y), 0, compute>>>(a, b, int(l.px), int(l.plane), inner, chunk);
        CHECK(cudaStreamSynchronize(halo));
        std::memset(receive[parity], 0, face_bytes);  // "MPI": the neighbour's boundary layer arrives
        CHECK(cudaMemcpy2DAsync(a + 1 + l.px + l.plane * (n + 1), pitch, receive[parity], width, width, n, cudaMemcpyHostToDevice, halo));
        CHECK(cudaEventRecord(unpacked, halo));
        CHECK(cudaStreamWaitEvent(compute, unpacked, 0));
        slab_kernel<<<unsigned((n * n + 255) / 256), 256, 0, compute>>>(a, b, int(l.px), int(l.plane), slab);
        CHECK(cudaEventRecord(step_done, compute));
        std::swap(a, b);
        parity ^= 1;
    }
    CHECK(cudaStreamSynchronize(compute));
    const double step_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / timed_steps;
    CHECK(cudaGetLastError());
    CHECK(cudaFreeHost(send));
    for (auto& r : receive) CHECK(cudaFreeHost(r));
    CHECK(cudaEventDestroy(unpacked));
    CHECK(cudaEventDestroy(step_done));
    CHECK(cudaStreamDestroy(halo));
    CHECK(cudaStreamDestroy(compute));
    return {step_s, a == u.base ? 1 : 0};
}

// ---- STREAM reference: the product's kernels (blocks of 256, one element per thread) ----
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
struct StreamRef {
    double triad_gbs, copy_gbs;
    bool valid;
};
StreamRef measure_stream() {
    const size_t n = size_t(1) << 28;  // 2 GiB per array, the product's bound size
    double *a, *b, *c;
    CHECK(cudaMalloc(&a, n * 8));
    CHECK(cudaMalloc(&b, n * 8));
    CHECK(cudaMalloc(&c, n * 8));
    const unsigned blocks = unsigned((n + 255) / 256);
    fill_kernel<<<blocks, 256>>>(a, 0.1, n);
    fill_kernel<<<blocks, 256>>>(b, 0.2, n);
    fill_kernel<<<blocks, 256>>>(c, 0.0, n);
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    auto time_it = [&](auto launch) {
        std::vector<double> t;
        for (int r = 0; r < 22; ++r) {
            CHECK(cudaEventRecord(e0));
            launch();
            CHECK(cudaEventRecord(e1));
            CHECK(cudaEventSynchronize(e1));
            float ms = 0;
            CHECK(cudaEventElapsedTime(&ms, e0, e1));
            if (r >= 2) t.push_back(ms * 1e-3);
        }
        return median(t);
    };
    const double copy_s = time_it([&] { copy_kernel<<<blocks, 256>>>(b, c, n); });      // c = b = 0.2
    const double triad_s = time_it([&] { triad_kernel<<<blocks, 256>>>(a, b, c, 0.4, n); });  // a = 0.2 + 0.08
    CHECK(cudaGetLastError());
    std::vector<double> ha(4), hc(4);
    bool valid = true;
    for (const size_t at : {size_t(0), n / 3, n - 1}) {
        CHECK(cudaMemcpy(ha.data(), a + at, 8, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(hc.data(), c + at, 8, cudaMemcpyDeviceToHost));
        valid = valid && ha[0] == 0.2 + 0.4 * 0.2 && hc[0] == 0.2;
    }
    CHECK(cudaEventDestroy(e0));
    CHECK(cudaEventDestroy(e1));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    return {3.0 * 8.0 * n / triad_s * 1e-9, 2.0 * 8.0 * n / copy_s * 1e-9, valid};
}

// Where the copy-like ceiling of this GPU is: the product's STREAM kernels use blocks of 256
// and one element per thread (copy 0.885 of triad at 09:28), BabelStream's anchor copy ran at
// 0.93 of triad with blocks of 1024. Variants: block size, double2 per thread, grid-stride
// (2 blocks of 1024 per SM); each result array is zeroed first and checked at 4 places.
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
    double *a, *b, *c;
    CHECK(cudaMalloc(&a, n * 8));
    CHECK(cudaMalloc(&b, n * 8));
    CHECK(cudaMalloc(&c, n * 8));
    fill_kernel<<<unsigned(n / 256), 256>>>(b, 0.2, n);
    fill_kernel<<<unsigned(n / 256), 256>>>(c, 0.3, n);
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    struct Case {
        const char* name;
        bool triad;
        std::function<void()> launch;
    };
    const std::vector<Case> cases = {
        {"copy_1x256 (product)", false, [&] { copy_kernel<<<unsigned(n / 256), 256>>>(b, a, n); }},
        {"copy_1x1024", false, [&] { copy_kernel<<<unsigned(n / 1024), 1024>>>(b, a, n); }},
        {"copy_double2x256", false, [&] { copy2_kernel<<<unsigned(n2 / 256), 256>>>((const double2*)b, (double2*)a, n2); }},
        {"copy_double2x1024", false, [&] { copy2_kernel<<<unsigned(n2 / 1024), 1024>>>((const double2*)b, (double2*)a, n2); }},
        {"copy_double2_gridstride_2x1024/SM", false,
         [&] { copy2_grid_stride_kernel<<<unsigned(2 * sms), 1024>>>((const double2*)b, (double2*)a, n2); }},
        {"triad_1x256 (product)", true, [&] { triad_kernel<<<unsigned(n / 256), 256>>>(a, b, c, 0.4, n); }},
        {"triad_1x1024", true, [&] { triad_kernel<<<unsigned(n / 1024), 1024>>>(a, b, c, 0.4, n); }},
        {"triad_double2x256", true,
         [&] { triad2_kernel<<<unsigned(n2 / 256), 256>>>((double2*)a, (const double2*)b, (const double2*)c, 0.4, n2); }},
    };
    std::printf("\n%-40s %9s %7s %7s  %s\n", "STREAM ceiling (2^28 doubles/array)", "GB/s", "/triad", "/copy", "check");
    for (const Case& k : cases) {
        CHECK(cudaMemset(a, 0, n * 8));
        std::vector<double> t;
        for (int r = 0; r < 22; ++r) {
            CHECK(cudaEventRecord(e0));
            k.launch();
            CHECK(cudaEventRecord(e1));
            CHECK(cudaEventSynchronize(e1));
            float ms = 0;
            CHECK(cudaEventElapsedTime(&ms, e0, e1));
            if (r >= 2) t.push_back(ms * 1e-3);
        }
        CHECK(cudaGetLastError());
        const double expected = k.triad ? 0.2 + 0.4 * 0.3 : 0.2;
        bool ok = true;
        for (const size_t at : {size_t(0), n / 3, n / 2 + 1, n - 1}) {
            double h = 0;
            CHECK(cudaMemcpy(&h, a + at, 8, cudaMemcpyDeviceToHost));
            ok = ok && h == expected;
        }
        const double gbs = (k.triad ? 3.0 : 2.0) * 8.0 * n / median(t) * 1e-9;
        std::printf("%-40s %9.1f %7.3f %7.3f  %s\n", k.name, gbs, gbs / ref.triad_gbs, gbs / ref.copy_gbs, ok ? "ok" : "WRONG VALUES");
    }
    CHECK(cudaEventDestroy(e0));
    CHECK(cudaEventDestroy(e1));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
}

void print_line(const std::string& name, long long n, double step_s, const StreamRef& ref, const char* check) {
    const double gcells = double(n) * n * n / step_s * 1e-9;
    const double gbs = gcells * bytes_per_cell;
    std::printf("%-40s %5lld %9.2f %9.1f %7.3f %7.3f  %s\n", name.c_str(), n, gcells, gbs, gbs / ref.triad_gbs, gbs / ref.copy_gbs, check);
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<long long> sizes;
    for (int a = 1; a < argc; ++a) sizes.push_back(std::atoll(argv[a]));
    if (sizes.empty()) sizes = {512, 768};
    for (const long long n : sizes)
        if (n < 4 || n > 1200) {  // 32-bit indices hold up to ~1290^3 padded; keep a margin
            std::printf("size %lld outside 4..1200\n", n);
            return 2;
        }
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("stencil_probe on %s (%d SMs), %d warm-up + %d timed steps per variant, median step\n", prop.name,
                prop.multiProcessorCount, warm_steps, timed_steps);

    const StreamRef ref = measure_stream();
    std::printf("reference: triad %.1f GB/s, copy %.1f GB/s (2^28 doubles per array, blocks of 256, median of 20)%s\n",
                ref.triad_gbs, ref.copy_gbs, ref.valid ? "" : "  STREAM VALIDATION FAILED");
    print_stream_ceiling(ref, prop.multiProcessorCount);

    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
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
        CHECK(cudaMemcpy(reference.alloc, old_result.alloc, reference.layout.elements * sizeof(double), cudaMemcpyDeviceToDevice));
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
        print_line("old_128x2x2_shells (as shipped)", n, old_t.step_s, ref, check);

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
        // The product's pair kernel (identical copy), any n: whole field, and an x-cut block
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
            print_breakdown(shape_name("one_cell", one), n, steps, queued_breakdown(zmarch_step<int, 4, false>(one), pu, pv, stream, steps), ref.triad_gbs);
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
        // The product's 1-GPU step loop now: its default shape (kernels/stencil/stencil_backend.hpp),
        // steps queued, one wait.
        for (const Shape s : {Shape{32, 4, 8}, Shape{32, 8, 32}})
            run_variant(shape_name("product_1gpu_queued", s), true, timed(zmarch_step<int, 4, false>(s), Timed::queued));
        if (n % 2 == 0)
            for (const Shape s : {Shape{32, 4, 8}, Shape{32, 8, 8}})
                run_variant(shape_name("zmarch2_shfl_queued", s), true, timed(zmarch2_step<true>(s), Timed::queued));
        // 2-GPU steps emulated on this GPU: the old (x cut, host sync per step) and the new
        // (z cut, pitched copies, pipelined) product, the latter also with two cells per thread.
        {
            const Shape s{32, 8, 32};
            run_variant(shape_name("x_neighbour_emulated_old", s), true, [s](Field& u, Field& v) { return run_emulated_neighbour(s, u, v); });
        }
        for (const Shape s : {Shape{32, 4, 8}, Shape{32, 8, 16}})
            run_variant(shape_name("z_neighbour_emulated_new", s), true,
                        [s](Field& u, Field& v) { return run_emulated_z_neighbour(s, false, u, v); });
        if (n % 2 == 0)
            for (const Shape s : {Shape{32, 4, 8}, Shape{32, 8, 8}})
                run_variant(shape_name("z_neighbour_emulated_new_pairs", s), true,
                            [s](Field& u, Field& v) { return run_emulated_z_neighbour(s, true, u, v); });
    }
    CHECK(cudaStreamDestroy(stream));
    std::printf("\n%s\n", failures == 0 ? "all variants validated" : "VALIDATION FAILURES above");
    return failures == 0 ? 0 : 1;
}
