// Kokkos-on-CUDA tuning probe (not a test): why Kokkos STREAM copy/scale and a Kokkos stencil3d
// written as a 3-D MDRange (Rank<3, Left, Left>, LayoutLeft, no tile: the product's first form)
// fall short of the native CUDA kernels, and what the product's device z-march gives. On one GPU it times, with Kokkos fences around a steady clock, the median of
// `reps` (20) after 3 warm-ups:
//   stream: copy, scale, triad on 2^29 doubles: RangePolicy<Cuda> with size_t (the product), int64
//           and int32 indices, LaunchBounds<128|256|512|1024>, 2 and 4 elements per thread
//           (i, i + n/2, ...), and plain CUDA kernels (one double per thread; double2);
//   stencil: the Jacobi update (kernels/stencil/stencil_update.hpp) on 512^3 (+ halo)
//           as MDRange Rank<3> with Kokkos' tile (printed) and given tiles, int and size_t
//           indices; a 2-D MDRange over (i, j) marching k; the product's z-march functor
//           (stencil_march.hpp) on rows of edge + 2 and on the padded device layout, with tiles
//           and z chunks; a 1-D RangePolicy over all cells.
// GB/s counts the bytes each kernel must move (copy/scale 16, triad 24 per element, stencil 16
// per cell); "/triad" is that over the plain CUDA triad measured in this process, i.e. for the
// stencil the fraction of its memory bound. Each variant's result is checked in full (exact for
// stream; for the stencil, every cell against a reference reduction and 6 cells against the
// formula on the host): a wrong variant prints WRONG.
// Usage: shakedown_kokkos_probe [edge (512)] [reps (20)]   (bench/gpu/run-on-gpu-host.sh kokkos-probe)
#include "kernels/stencil/stencil_device_layout.hpp"
#include "kernels/stencil/stencil_march.hpp"
#include "kernels/stencil/stencil_update.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using shakedown::kernels::jacobi_update;
using Exec = Kokkos::Cuda;
using Array = Kokkos::View<double*, Kokkos::CudaSpace>;
using Field = Kokkos::View<double***, Kokkos::LayoutLeft, Kokkos::CudaSpace>;
constexpr double scalar = 3.0;

int reps = 20;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Median seconds of one call of f, fenced.
template <class F>
double time_it(F&& f) {
    for (int w = 0; w < 3; ++w) f();
    Kokkos::fence();
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        Kokkos::fence();
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return median(t);
}

// ---------------- stream ----------------
__global__ void plain_copy(const double* __restrict__ a, double* __restrict__ c, std::size_t n) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < n) c[i] = a[i];
}
__global__ void plain_scale(double* __restrict__ b, const double* __restrict__ c, std::size_t n) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < n) b[i] = scalar * c[i];
}
__global__ void plain_triad(double* __restrict__ a, const double* __restrict__ b, const double* __restrict__ c,
                            std::size_t n) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < n) a[i] = b[i] + scalar * c[i];
}
__global__ void plain2_copy(const double2* __restrict__ a, double2* __restrict__ c, std::size_t n2) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < n2) c[i] = a[i];
}
__global__ void plain2_scale(double2* __restrict__ b, const double2* __restrict__ c, std::size_t n2) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < n2) { const double2 x = c[i]; b[i] = make_double2(scalar * x.x, scalar * x.y); }
}
__global__ void plain2_triad(double2* __restrict__ a, const double2* __restrict__ b, const double2* __restrict__ c,
                             std::size_t n2) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < n2) {
        const double2 x = b[i], y = c[i];
        a[i] = make_double2(x.x + scalar * y.x, x.y + scalar * y.y);
    }
}

struct StreamRow {
    std::string name;
    double copy = 0, scale = 0, triad = 0;  // GB/s
    std::string check;
};

struct Arrays {
    std::size_t n;
    Array a, b, c;
};

void stream_init(const Arrays& s) {
    const Array a = s.a, b = s.b, c = s.c;
    Kokkos::parallel_for("probe_init", Kokkos::RangePolicy<Exec>(0, s.n), KOKKOS_LAMBDA(const std::size_t i) {
        a(i) = 1.0 + static_cast<double>(i % 7);
        b(i) = -1.0;
        c(i) = -1.0;
    });
    Kokkos::fence();
}

// After copy, scale, triad from a0 = 1 + i % 7: c = a0, b = s a0, a = 2 s a0, exactly.
std::string stream_check(const Arrays& s) {
    const Array a = s.a, b = s.b, c = s.c;
    long long bad = 0;
    Kokkos::parallel_reduce(
        "probe_check", Kokkos::RangePolicy<Exec>(0, s.n),
        KOKKOS_LAMBDA(const std::size_t i, long long& wrong) {
            const double a0 = 1.0 + static_cast<double>(i % 7);
            if (c(i) != a0 || b(i) != scalar * a0 || a(i) != 2.0 * scalar * a0) ++wrong;
        },
        bad);
    return bad == 0 ? "ok" : "WRONG (" + std::to_string(bad) + " elements)";
}

// Times copy, scale, triad given three callables, checks, returns GB/s.
template <class C, class S, class T>
StreamRow stream_row(const std::string& name, const Arrays& s, C&& copy, S&& scale, T&& triad) {
    stream_init(s);
    StreamRow row{name};
    const double bytes = static_cast<double>(s.n) * sizeof(double);
    row.copy = 2 * bytes / time_it(copy) / 1e9;
    row.scale = 2 * bytes / time_it(scale) / 1e9;
    row.triad = 3 * bytes / time_it(triad) / 1e9;
    row.check = stream_check(s);
    return row;
}

// Index: the lambda's argument (the product: size_t over the default int64 policy).
template <class Policy, class Index = typename Policy::index_type>
StreamRow stream_kokkos(const std::string& name, const Arrays& s) {
    const Array a = s.a, b = s.b, c = s.c;
    const Index n = static_cast<Index>(s.n);
    return stream_row(
        name, s,
        [&] { Kokkos::parallel_for("copy", Policy(0, n), KOKKOS_LAMBDA(const Index i) { c(i) = a(i); }); },
        [&] { Kokkos::parallel_for("scale", Policy(0, n), KOKKOS_LAMBDA(const Index i) { b(i) = scalar * c(i); }); },
        [&] {
            Kokkos::parallel_for("triad", Policy(0, n), KOKKOS_LAMBDA(const Index i) { a(i) = b(i) + scalar * c(i); });
        });
}

// `per` elements per thread: thread i takes i, i + n/per, ... (each access coalesced).
template <int per>
StreamRow stream_multi(const std::string& name, const Arrays& s) {
    const Array a = s.a, b = s.b, c = s.c;
    const std::size_t q = s.n / per;
    using Policy = Kokkos::RangePolicy<Exec>;
    return stream_row(
        name, s,
        [&] {
            Kokkos::parallel_for("copy", Policy(0, q), KOKKOS_LAMBDA(const std::size_t i) {
                for (int k = 0; k < per; ++k) c(i + k * q) = a(i + k * q);
            });
        },
        [&] {
            Kokkos::parallel_for("scale", Policy(0, q), KOKKOS_LAMBDA(const std::size_t i) {
                for (int k = 0; k < per; ++k) b(i + k * q) = scalar * c(i + k * q);
            });
        },
        [&] {
            Kokkos::parallel_for("triad", Policy(0, q), KOKKOS_LAMBDA(const std::size_t i) {
                for (int k = 0; k < per; ++k) a(i + k * q) = b(i + k * q) + scalar * c(i + k * q);
            });
        });
}

// ---------------- stencil ----------------
KOKKOS_INLINE_FUNCTION double initial(std::size_t i, std::size_t j, std::size_t k) {
    return 0.01 * static_cast<double>((i * 7 + j * 13 + k * 17) % 101);
}

struct StencilRow {
    std::string name, tile;
    double gbs = 0;
    std::string check;
};

struct Fields {
    std::size_t edge;
    Field u, v;
    double reference = 0;  // sum of the update over all interior cells
};

void stencil_reset(const Fields& f) {
    Kokkos::deep_copy(f.v, -7.0);
    Kokkos::fence();
}

std::string stencil_check(const Fields& f) {
    const Field v = f.v;
    const std::size_t n = f.edge;
    double sum = 0;
    Kokkos::parallel_reduce(
        "probe_sum",
        Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>>({1, 1, 1},
                                                                                                   {n + 1, n + 1, n + 1}),
        KOKKOS_LAMBDA(const std::size_t i, const std::size_t j, const std::size_t k, double& s) { s += v(i, j, k); },
        sum);
    std::string why;
    if (!(std::abs(sum - f.reference) <= 1e-9 * std::abs(f.reference))) why += " checksum " + std::to_string(sum);
    const std::size_t cells[6][3] = {{1, 1, 1}, {n, n, n}, {n / 2, 1, n}, {1, n / 3, n / 2}, {n, 2, 3}, {n / 2 + 1, n - 1, 2}};
    Kokkos::View<double[6], Kokkos::CudaSpace> picked("picked");
    const auto host = Kokkos::create_mirror_view(picked);
    Kokkos::View<std::size_t[6][3], Kokkos::CudaSpace> where("where");
    auto where_host = Kokkos::create_mirror_view(where);
    for (int c = 0; c < 6; ++c)
        for (int d = 0; d < 3; ++d) where_host(c, d) = cells[c][d];
    Kokkos::deep_copy(where, where_host);
    Kokkos::parallel_for("probe_pick", Kokkos::RangePolicy<Exec>(0, 6), KOKKOS_LAMBDA(const int c) {
        picked(c) = v(where(c, 0), where(c, 1), where(c, 2));
    });
    Kokkos::deep_copy(host, picked);
    for (int c = 0; c < 6; ++c) {
        const std::size_t i = cells[c][0], j = cells[c][1], k = cells[c][2];
        const double want = jacobi_update(initial(i, j, k), initial(i - 1, j, k), initial(i + 1, j, k),
                                          initial(i, j - 1, k), initial(i, j + 1, k), initial(i, j, k - 1),
                                          initial(i, j, k + 1));
        if (!(std::abs(host(c) - want) <= 1e-14)) why += " cell(" + std::to_string(i) + "," + std::to_string(j) + "," +
                                                        std::to_string(k) + ")=" + std::to_string(host(c));
    }
    return why.empty() ? "ok" : "WRONG" + why;
}

template <class F>
StencilRow stencil_row(const std::string& name, const std::string& tile, const Fields& f, F&& step) {
    stencil_reset(f);
    StencilRow row{name, tile};
    const double cells = static_cast<double>(f.edge) * f.edge * f.edge;
    row.gbs = cells * shakedown::kernels::stencil_bytes_per_cell / time_it(step) / 1e9;
    row.check = stencil_check(f);
    return row;
}

std::string tile_text(const int* t, int rank) {
    std::string s;
    for (int d = 0; d < rank; ++d) s += (d ? "x" : "") + std::to_string(t[d]);
    return s;
}

// MDRange Rank<3, Left, Left> as the product; tile {0,0,0} = Kokkos' choice (printed). Index:
// the lambda's arguments and bounds; Traits: IndexType<...> or none (the product: size_t
// arguments over the default int64 policy).
template <class Index, class... Traits>
StencilRow stencil_md3(const std::string& name, const Fields& f, std::array<int, 3> tile) {
    using Policy = Kokkos::MDRangePolicy<Exec, Traits..., Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>>;
    const Index lo = 1, hi = static_cast<Index>(f.edge + 1);
    const Policy policy({lo, lo, lo}, {hi, hi, hi}, {tile[0], tile[1], tile[2]});
    const int chosen[3] = {static_cast<int>(policy.m_tile[0]), static_cast<int>(policy.m_tile[1]),
                           static_cast<int>(policy.m_tile[2])};
    const Field u = f.u, v = f.v;
    return stencil_row(name, tile_text(chosen, 3) + (tile[0] == 0 ? " (Kokkos)" : ""), f, [&] {
        Kokkos::parallel_for("stencil_md3", policy, KOKKOS_LAMBDA(const Index i, const Index j, const Index k) {
            v(i, j, k) = jacobi_update(u(i, j, k), u(i - 1, j, k), u(i + 1, j, k), u(i, j - 1, k), u(i, j + 1, k),
                                       u(i, j, k - 1), u(i, j, k + 1));
        });
    });
}

// 2-D MDRange over (i, j), each thread marching k.
template <class Index, class... Traits>
StencilRow stencil_md2(const std::string& name, const Fields& f, std::array<int, 2> tile) {
    using Policy = Kokkos::MDRangePolicy<Exec, Traits..., Kokkos::Rank<2, Kokkos::Iterate::Left, Kokkos::Iterate::Left>>;
    const Index lo = 1, hi = static_cast<Index>(f.edge + 1);
    const Policy policy({lo, lo}, {hi, hi}, {tile[0], tile[1]});
    const int chosen[2] = {static_cast<int>(policy.m_tile[0]), static_cast<int>(policy.m_tile[1])};
    const Field u = f.u, v = f.v;
    return stencil_row(name, tile_text(chosen, 2) + (tile[0] == 0 ? " (Kokkos)" : ""), f, [&] {
        Kokkos::parallel_for("stencil_md2", policy, KOKKOS_LAMBDA(const Index i, const Index j) {
            for (Index k = lo; k < hi; ++k)
                v(i, j, k) = jacobi_update(u(i, j, k), u(i - 1, j, k), u(i + 1, j, k), u(i, j - 1, k), u(i, j + 1, k),
                                           u(i, j, k - 1), u(i, j, k + 1));
        });
    });
}

// 1-D RangePolicy over all interior cells, i fastest.
template <class Index>
StencilRow stencil_flat(const std::string& name, const Fields& f) {
    using Policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<Index>>;
    const Index n = static_cast<Index>(f.edge);
    const Field u = f.u, v = f.v;
    return stencil_row(name, "-", f, [&] {
        Kokkos::parallel_for("stencil_flat", Policy(0, n * n * n), KOKKOS_LAMBDA(const Index c) {
            const Index i = c % n + 1, j = (c / n) % n + 1, k = c / (n * n) + 1;
            v(i, j, k) = jacobi_update(u(i, j, k), u(i - 1, j, k), u(i + 1, j, k), u(i, j - 1, k), u(i, j + 1, k),
                                       u(i, j, k - 1), u(i, j, k + 1));
        });
    });
}

// The product's device z-march (kernels/stencil/stencil_march.hpp) over an MDRange of
// (x from cell 1, y, z chunk), int indices. padded: on the native device layout (rows padded,
// cell 1 on a 128-byte line: the product's Kokkos device fields), copied in before and the
// result copied back into f.v after timing; else on f's LayoutLeft fields (rows of edge + 2).
StencilRow stencil_march(const std::string& name, const Fields& f, std::array<int, 2> tile, int chunk, bool padded,
                         bool pairs = false) {
    using shakedown::kernels::DeviceLayout;
    using shakedown::kernels::StencilMarch;
    using shakedown::kernels::StencilMarchPairs;
    using Policy = Kokkos::MDRangePolicy<Exec, Kokkos::IndexType<int>, Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>>;
    using Strided = Kokkos::View<double***, Kokkos::LayoutStride, Kokkos::CudaSpace, Kokkos::MemoryUnmanaged>;
    const std::size_t n = f.edge, m = n + 2;
    const DeviceLayout layout = padded ? shakedown::kernels::padded_layout(n, n, n)
                                       : DeviceLayout{static_cast<std::int64_t>(n), static_cast<std::int64_t>(n),
                                                      static_cast<std::int64_t>(n), static_cast<std::int64_t>(m),
                                                      static_cast<std::int64_t>(m * m)};
    Array pu, pv;
    const double* in = f.u.data();
    double* out = f.v.data();
    if (padded) {
        pu = Array("pu", static_cast<std::size_t>(layout.allocation()));
        pv = Array("pv", static_cast<std::size_t>(layout.allocation()));
        const Kokkos::LayoutStride strides(m, 1, m, static_cast<std::size_t>(layout.row), m, static_cast<std::size_t>(layout.plane));
        const Strided su(pu.data() + DeviceLayout::lead, strides);
        const Strided sv(pv.data() + DeviceLayout::lead, strides);
        const Field u = f.u;
        Kokkos::parallel_for("probe_pad", Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>>({0, 0, 0}, {m, m, m}),
                             KOKKOS_LAMBDA(const std::size_t i, const std::size_t j, const std::size_t k) {
                                 su(i, j, k) = u(i, j, k);
                                 sv(i, j, k) = u(i, j, k);
                             });
        Kokkos::fence();
        in = pu.data() + DeviceLayout::lead;
        out = pv.data() + DeviceLayout::lead;
    }
    const int chunks = static_cast<int>((n + chunk - 1) / chunk);
    const StencilMarch<int> step{in, out, static_cast<int>(layout.row), static_cast<int>(layout.plane), 1, 1,
                                 static_cast<int>(n + 1), chunk};
    const Policy policy({1, 1, 0}, {static_cast<int>(n + 1), static_cast<int>(n + 1), chunks}, {tile[0], tile[1], 1});
    // Pairs (cells 1 + 2p, 2 + 2p) need 16-byte aligned odd cells: the padded layout only.
    const StencilMarchPairs<int> pair_step{in, out, static_cast<int>(layout.row), static_cast<int>(layout.plane), 1,
                                           static_cast<int>(n + 1), 1, static_cast<int>(n + 1), chunk};
    const Policy pair_policy({0, 1, 0}, {static_cast<int>(n + 1) / 2, static_cast<int>(n + 1), chunks}, {tile[0], tile[1], 1});
    stencil_reset(f);
    StencilRow row{name, tile_text(tile.data(), 2) + " z" + std::to_string(chunk)};
    row.gbs = static_cast<double>(n) * n * n * shakedown::kernels::stencil_bytes_per_cell /
              time_it([&] {
                  if (pairs && padded)
                      Kokkos::parallel_for("stencil_march_pairs", pair_policy, pair_step);
                  else
                      Kokkos::parallel_for("stencil_march", policy, step);
              }) / 1e9;
    if (padded) {
        const Strided sv(pv.data() + DeviceLayout::lead,
                         Kokkos::LayoutStride(m, 1, m, static_cast<std::size_t>(layout.row), m, static_cast<std::size_t>(layout.plane)));
        const Field v = f.v;
        Kokkos::parallel_for("probe_unpad", Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>>({1, 1, 1}, {n + 1, n + 1, n + 1}),
                             KOKKOS_LAMBDA(const std::size_t i, const std::size_t j, const std::size_t k) { v(i, j, k) = sv(i, j, k); });
        Kokkos::fence();
    }
    row.check = stencil_check(f);
    return row;
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t edge = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 512;
    if (argc > 2) reps = std::atoi(argv[2]);
    Kokkos::ScopeGuard guard(argc, argv);
    std::printf("shakedown_kokkos_probe: Kokkos %d, %s device %d, median of %d reps after 3 warm-ups\n", KOKKOS_VERSION,
                Exec::name(), Exec().cuda_device(), reps);
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, Exec().cuda_device());
    std::printf("device: %s\n", prop.name);

    double native_triad = 0;
    {
        Arrays s{std::size_t(1) << 29, Array(Kokkos::view_alloc("a", Kokkos::WithoutInitializing), std::size_t(1) << 29),
                 Array(Kokkos::view_alloc("b", Kokkos::WithoutInitializing), std::size_t(1) << 29),
                 Array(Kokkos::view_alloc("c", Kokkos::WithoutInitializing), std::size_t(1) << 29)};
        double *a = s.a.data(), *b = s.b.data(), *c = s.c.data();
        const std::size_t n = s.n;
        std::vector<StreamRow> rows;
        const unsigned blocks = static_cast<unsigned>((n + 255) / 256), blocks2 = static_cast<unsigned>((n / 2 + 255) / 256);
        rows.push_back(stream_row(
            "cuda plain, 1 double/thread, 256", s, [&] { plain_copy<<<blocks, 256>>>(a, c, n); },
            [&] { plain_scale<<<blocks, 256>>>(b, c, n); }, [&] { plain_triad<<<blocks, 256>>>(a, b, c, n); }));
        rows.push_back(stream_row(
            "cuda plain, double2/thread, 256", s,
            [&] { plain2_copy<<<blocks2, 256>>>(reinterpret_cast<double2*>(a), reinterpret_cast<double2*>(c), n / 2); },
            [&] { plain2_scale<<<blocks2, 256>>>(reinterpret_cast<double2*>(b), reinterpret_cast<double2*>(c), n / 2); },
            [&] {
                plain2_triad<<<blocks2, 256>>>(reinterpret_cast<double2*>(a), reinterpret_cast<double2*>(b),
                                               reinterpret_cast<double2*>(c), n / 2);
            }));
        native_triad = std::max(rows[0].triad, rows[1].triad);
        rows.push_back(stream_kokkos<Kokkos::RangePolicy<Exec>, std::size_t>("kokkos Range size_t (product)", s));
        rows.push_back(stream_kokkos<Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>>("kokkos Range int64", s));
        rows.push_back(stream_kokkos<Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int32_t>>>("kokkos Range int32", s));
        rows.push_back(stream_kokkos<Kokkos::RangePolicy<Exec, Kokkos::LaunchBounds<128, 1>>>("kokkos LaunchBounds<128>", s));
        rows.push_back(stream_kokkos<Kokkos::RangePolicy<Exec, Kokkos::LaunchBounds<256, 1>>>("kokkos LaunchBounds<256>", s));
        rows.push_back(stream_kokkos<Kokkos::RangePolicy<Exec, Kokkos::LaunchBounds<512, 1>>>("kokkos LaunchBounds<512>", s));
        rows.push_back(
            stream_kokkos<Kokkos::RangePolicy<Exec, Kokkos::LaunchBounds<1024, 1>>>("kokkos LaunchBounds<1024>", s));
        rows.push_back(stream_kokkos<Kokkos::RangePolicy<Exec, Kokkos::LaunchBounds<256, 1>, Kokkos::IndexType<std::int32_t>>>(
            "kokkos LaunchBounds<256> int32", s));
        rows.push_back(stream_multi<2>("kokkos Range, 2/thread (i, i+n/2)", s));
        rows.push_back(stream_multi<4>("kokkos Range, 4/thread (i+k n/4)", s));
        std::printf("\nSTREAM, %zu doubles; GB/s (copy/scale 16 B, triad 24 B per element); /triad: over the best plain "
                    "CUDA triad (%.1f GB/s)\n",
                    n, native_triad);
        std::printf("%-36s %9s %7s %9s %7s %9s %7s  %s\n", "variant", "copy", "/triad", "scale", "/triad", "triad",
                    "/triad", "check");
        for (const StreamRow& r : rows)
            std::printf("%-36s %9.1f %7.3f %9.1f %7.3f %9.1f %7.3f  %s\n", r.name.c_str(), r.copy, r.copy / native_triad,
                        r.scale, r.scale / native_triad, r.triad, r.triad / native_triad, r.check.c_str());
        std::fflush(stdout);
    }

    {
        const std::size_t m = edge + 2;
        Fields f{edge, Field(Kokkos::view_alloc("u", Kokkos::WithoutInitializing), m, m, m),
                 Field(Kokkos::view_alloc("v", Kokkos::WithoutInitializing), m, m, m)};
        const Field u = f.u;
        using All = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>>;
        Kokkos::parallel_for("probe_u", All({0, 0, 0}, {m, m, m}),
                             KOKKOS_LAMBDA(const std::size_t i, const std::size_t j, const std::size_t k) {
                                 u(i, j, k) = initial(i, j, k);
                             });
        Kokkos::parallel_reduce(
            "probe_reference", All({1, 1, 1}, {edge + 1, edge + 1, edge + 1}),
            KOKKOS_LAMBDA(const std::size_t i, const std::size_t j, const std::size_t k, double& s) {
                s += jacobi_update(u(i, j, k), u(i - 1, j, k), u(i + 1, j, k), u(i, j - 1, k), u(i, j + 1, k),
                                   u(i, j, k - 1), u(i, j, k + 1));
            },
            f.reference);
        std::vector<StencilRow> rows;
        const std::array<int, 3> tiles[] = {{0, 0, 0},  {32, 4, 4},  {32, 8, 1}, {64, 4, 1},  {128, 2, 1}, {256, 1, 1},
                                            {32, 2, 2}, {32, 4, 1},  {64, 2, 2}, {128, 1, 1}, {16, 8, 2},  {64, 8, 1}};
        for (const auto& t : tiles) rows.push_back(stencil_md3<std::size_t>("MDRange3 size_t", f, t));
        for (const auto& t : tiles) rows.push_back(stencil_md3<int, Kokkos::IndexType<int>>("MDRange3 int", f, t));
        const std::array<int, 2> tiles2[] = {{0, 0}, {32, 4}, {32, 8}, {64, 4}, {128, 2}, {256, 1}};
        for (const auto& t : tiles2) rows.push_back(stencil_md2<std::size_t>("MDRange2 (i,j) + k loop size_t", f, t));
        for (const auto& t : tiles2) rows.push_back(stencil_md2<int, Kokkos::IndexType<int>>("MDRange2 (i,j) + k loop int", f, t));
        const std::array<int, 2> march_tiles[] = {{32, 8}, {32, 4}, {64, 4}, {128, 2}};
        for (const auto& t : march_tiles) rows.push_back(stencil_march("z-march int, rows of edge+2", f, t, 8, false));
        for (const auto& t : march_tiles) rows.push_back(stencil_march("z-march int, padded (product)", f, t, 8, true));
        for (const int chunk : {4, 16, 64}) rows.push_back(stencil_march("z-march int, padded", f, {32, 8}, chunk, true));
        for (const auto& t : march_tiles)
            rows.push_back(stencil_march("z-march pairs int, padded (product)", f, t, 8, true, /*pairs=*/true));
        rows.push_back(stencil_flat<std::int64_t>("Range 1-D over cells int64", f));
        rows.push_back(stencil_flat<std::int32_t>("Range 1-D over cells int32", f));
        std::printf("\nstencil3d Jacobi, %zu^3 (+halo), LayoutLeft; GB/s at 16 B/cell; /triad: of the memory bound "
                    "(plain CUDA triad %.1f GB/s); the product is 'z-march int, padded (product)' 32x8 z8 (before: 'MDRange3 size_t' with Kokkos' tile)\n",
                    edge, native_triad);
        std::printf("%-34s %-16s %9s %9s %7s  %s\n", "variant", "tile", "Gcell/s", "GB/s", "/triad", "check");
        for (const StencilRow& r : rows)
            std::printf("%-34s %-16s %9.2f %9.1f %7.3f  %s\n", r.name.c_str(), r.tile.c_str(), r.gbs / 16.0, r.gbs,
                        r.gbs / native_triad, r.check.c_str());
    }
    return 0;
}
