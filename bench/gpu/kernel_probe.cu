// kernel_probe: the STREAM launch-shape probe for the GPU host, not part of shakedown's tests.
// It times, at 2^29 doubles per array (the product's GPU default), every launch shape we choose
// between for stream_launch_table (kernels/stream/stream_launch.hpp), so each kernel can take its
// own measured best. The kernels are the product's own (kernels/stream/stream_kernels.cuh,
// included here); what varies is how they are launched:
//   copy, scale, add, triad: threads per block 256/512/1024 x one double, one double2 or two
//     double2 (block-strided, both coalesced) per thread over the whole array ("direct"), and
//     grid-stride loops with a fixed grid of k blocks per SM (double / double2);
//   dot: the product's grid-stride kernel with k blocks per SM, finished on the host (the
//     product's design) or by a second-pass kernel; and the probe's own alternatives: one
//     atomicAdd per block, or a block reduction with one chunk per thread (1/2/4 elements) and a
//     second-pass kernel.
// Every variant is validated: the inputs are small integers (a[i] = i%1021, b[i] = i%1019,
// c[i] = (i%1013)/4), the output array is poisoned with NaN first, every element is compared
// with the same operation applied on the device to that element's start values, and the dot
// product is exact (integer sums < 2^53) against a host sum. Each variant also runs once on
// an odd length (1000003: the vector kernels' scalar tail) with 64 guard elements behind the
// end that must stay untouched. One line per variant: median and best GB/s of 20 timed
// launches (after 2 warm-ups; bytes from the STREAM table: copy/scale/dot 16, add/triad 24 per
// element), then the best shape per kernel. About 20 s on an H200. DGEMM and FP8 questions are
// bench/gpu/gemm_probe.cu's.
// Build (a CUDA build of shakedown): cmake --build build --target shakedown_kernel_probe
// Run:   build/bench/gpu/shakedown_kernel_probe [device]   (bench/gpu/make-bundle.sh packs it)
#include "bench/gpu/probe_support.hpp"
#include "gpu/cuda_owners.hpp"
#include "kernels/stream/stream_kernels.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace gpu = shakedown::gpu;
namespace kernels = shakedown::kernels;  // the product's STREAM kernels
namespace probe = shakedown::probe;

constexpr std::size_t big_n = std::size_t(1) << 29;
constexpr std::size_t odd_n = 1000003;  // odd, and its double2 count is no multiple of any block
constexpr std::size_t guard = 64;       // elements behind an odd-length run that must stay untouched
constexpr int timed_reps = 20;
constexpr int warmups = 2;

__host__ __device__ inline double start_a(std::size_t i) { return double(i % 1021); }
__host__ __device__ inline double start_b(std::size_t i) { return double(i % 1019); }
__host__ __device__ inline double start_c(std::size_t i) { return double(i % 1013) * 0.25; }

// The four element-wise kernels: the product's operation, the array it writes (0 a, 1 b, 2 c)
// and bytes per element.
struct Copy {
    using Kernel = kernels::CopyOp;
    static constexpr const char* name = "copy";
    static constexpr int out = 2;
    static constexpr double bytes = 16;
};
struct Scale {
    using Kernel = kernels::ScaleOp;
    static constexpr const char* name = "scale";
    static constexpr int out = 1;
    static constexpr double bytes = 16;
};
struct Add {
    using Kernel = kernels::AddOp;
    static constexpr const char* name = "add";
    static constexpr int out = 2;
    static constexpr double bytes = 24;
};
struct Triad {
    using Kernel = kernels::TriadOp;
    static constexpr const char* name = "triad";
    static constexpr int out = 0;
    static constexpr double bytes = 24;
};

// The probe's own dot alternatives, built from the product's block_sum and product.
template <class T>
__device__ inline double dot_tail(const double* a, const double* b, std::size_t n) {
    if constexpr (kernels::doubles_in<T> > 1) {
        const std::size_t full = n / kernels::doubles_in<T> * kernels::doubles_in<T>;
        if (blockIdx.x == 0 && threadIdx.x < n - full) return a[full + threadIdx.x] * b[full + threadIdx.x];
    }
    return 0.0;
}

template <class T, int U>
__global__ void dot_direct(const double* __restrict__ a, const double* __restrict__ b, double* __restrict__ partial,
                           std::size_t n) {
    const std::size_t vectors = n / kernels::doubles_in<T>;
    const std::size_t first = blockIdx.x * std::size_t(blockDim.x) * U + threadIdx.x;
    double sum = dot_tail<T>(a, b, n);
#pragma unroll
    for (int u = 0; u < U; ++u) {
        const std::size_t j = first + std::size_t(u) * blockDim.x;
        if (j < vectors) sum += kernels::product(reinterpret_cast<const T*>(a)[j], reinterpret_cast<const T*>(b)[j]);
    }
    sum = kernels::block_sum(sum);
    if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}

// The product's grid-stride dot, each block adding its sum to *result instead of storing it.
template <class T>
__global__ void dot_stride_atomic(const double* __restrict__ a, const double* __restrict__ b, double* __restrict__ result,
                                  std::size_t n) {
    const std::size_t vectors = n / kernels::doubles_in<T>;
    double sum = dot_tail<T>(a, b, n);
    for (std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; j < vectors;
         j += std::size_t(blockDim.x) * gridDim.x)
        sum += kernels::product(reinterpret_cast<const T*>(a)[j], reinterpret_cast<const T*>(b)[j]);
    sum = kernels::block_sum(sum);
    if (threadIdx.x == 0) atomicAdd(result, sum);
}

__global__ void sum_partials(const double* __restrict__ partial, std::size_t count, double* __restrict__ result) {
    double sum = 0.0;
    for (std::size_t i = threadIdx.x; i < count; i += blockDim.x) sum += partial[i];
    sum = kernels::block_sum(sum);
    if (threadIdx.x == 0) *result = sum;
}

__global__ void fill_start(double* a, double* b, double* c, std::size_t n) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) {
        a[i] = start_a(i);
        b[i] = start_b(i);
        c[i] = start_c(i);
    }
}

// Every element below n must equal Op applied to its start values; the guard elements behind
// n must still hold the NaN poison (nothing written past the end).
template <class Op>
__global__ void check_output(const double* out, std::size_t n, std::size_t guard_elements, unsigned long long* wrong,
                             unsigned long long* first_wrong) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= n + guard_elements) return;
    const double value = out[i];
    bool bad;
    if (i < n) {
        double start[3] = {start_a(i), start_b(i), start_c(i)};
        Op::Kernel::at(start + 0, start + 1, start + 2, 0);
        const double expected = start[Op::out];
        bad = !(fabs(value - expected) <= 1e-15 * fabs(expected));  // NaN counts as wrong
    } else {
        bad = !isnan(value);
    }
    if (bad) {
        atomicAdd(wrong, 1ull);
        atomicMin(first_wrong, static_cast<unsigned long long>(i));
    }
}

struct Device {
    double* a = nullptr;
    double* b = nullptr;
    double* c = nullptr;
    double* partial = nullptr;  // per-block sums: up to one per 256 elements
    double* result = nullptr;
    unsigned long long* counters = nullptr;
    int sms = 0;
    double* array(int index) const { return index == 0 ? a : index == 1 ? b : c; }
};

unsigned blocks_for(std::size_t items, int per_block) {
    return unsigned(std::max<std::size_t>(1, (items + per_block - 1) / per_block));
}

struct Timing {
    double median_s = 0, best_s = 0;
};
Timing time_launches(const std::function<void()>& launch) {
    for (int w = 0; w < warmups; ++w) launch();
    gpu::EventTimer timer(nullptr);  // the legacy default stream, where the probe launches
    std::vector<double> seconds;
    for (int r = 0; r < timed_reps; ++r) {
        timer.start();
        launch();
        seconds.push_back(timer.stop_seconds());
    }
    SHAKEDOWN_CUDA_LAUNCH("timed launches");
    return {probe::median(seconds), *std::min_element(seconds.begin(), seconds.end())};
}

// Start values in a, b, c over n + guard elements; the kernel's output array poisoned with NaN.
void prepare(const Device& d, int out, std::size_t n, std::size_t guard_elements) {
    fill_start<<<blocks_for(n + guard_elements, 256), 256>>>(d.a, d.b, d.c, n + guard_elements);
    SHAKEDOWN_CUDA(cudaMemset(d.array(out), 0xff, (n + guard_elements) * sizeof(double)));
}

template <class Op>
std::pair<unsigned long long, unsigned long long> count_wrong(const Device& d, std::size_t n, std::size_t guard_elements) {
    const unsigned long long init[2] = {0, ~0ull};
    SHAKEDOWN_CUDA(cudaMemcpy(d.counters, init, sizeof init, cudaMemcpyHostToDevice));
    check_output<Op><<<blocks_for(n + guard_elements, 256), 256>>>(d.array(Op::out), n, guard_elements, d.counters,
                                                                    d.counters + 1);
    unsigned long long found[2];
    SHAKEDOWN_CUDA(cudaMemcpy(found, d.counters, sizeof found, cudaMemcpyDeviceToHost));
    return {found[0], found[1]};
}

struct Best {
    std::string shape;
    double gbs = 0;
};
std::map<std::string, Best> best_per_kernel;
std::vector<std::string> kernel_order;

void report(const char* kernel, const std::string& shape, double bytes, const Timing& t, const std::string& verdict) {
    const double gb = bytes * double(big_n) / 1e9;
    const double median = gb / t.median_s, best = gb / t.best_s;
    std::printf("%-6s %-34s %8.1f %8.1f  %s\n", kernel, shape.c_str(), median, best, verdict.c_str());
    std::fflush(stdout);
    if (!best_per_kernel.count(kernel)) kernel_order.push_back(kernel);
    Best& b = best_per_kernel[kernel];
    if (verdict == "ok" && median > b.gbs) b = {shape, median};
}

std::string verdict_of(std::pair<unsigned long long, unsigned long long> big, std::pair<unsigned long long, unsigned long long> odd) {
    if (big.first == 0 && odd.first == 0) return "ok";
    char text[160];
    std::snprintf(text, sizeof text, "FAIL: 2^29: %llu wrong (first %llu); n=%zu: %llu wrong (first %llu)", big.first,
                  big.first ? big.second : 0ull, odd_n, odd.first, odd.first ? odd.second : 0ull);
    return text;
}

using Launch = std::function<void(std::size_t n)>;
struct Shape {
    std::string name;
    Launch launch;
};

template <class Op>
void probe_elementwise(const Device& d) {
    using K = typename Op::Kernel;
    std::vector<Shape> shapes;
    char name[64];
    for (int tb : {256, 512, 1024}) {
        std::snprintf(name, sizeof name, "direct tb=%d double x1", tb);
        shapes.push_back({name, [=](std::size_t n) {
                              kernels::elementwise_cover<K, double, 1><<<blocks_for(n, tb), tb>>>(d.a, d.b, d.c, n);
                          }});
        std::snprintf(name, sizeof name, "direct tb=%d double2 x1", tb);
        shapes.push_back({name, [=](std::size_t n) {
                              kernels::elementwise_cover<K, double2, 1><<<blocks_for(n / 2, tb), tb>>>(d.a, d.b, d.c, n);
                          }});
        std::snprintf(name, sizeof name, "direct tb=%d double2 x2", tb);
        shapes.push_back({name, [=](std::size_t n) {
                              kernels::elementwise_cover<K, double2, 2><<<blocks_for(n / 2, 2 * tb), tb>>>(d.a, d.b, d.c, n);
                          }});
    }
    for (int tb : {256, 1024})
        for (int per_sm : {2, 4, 8, 16}) {
            const unsigned grid = unsigned(per_sm * d.sms);
            std::snprintf(name, sizeof name, "stride tb=%d %d/SM double", tb, per_sm);
            shapes.push_back(
                {name, [=](std::size_t n) { kernels::elementwise_stride<K, double><<<grid, tb>>>(d.a, d.b, d.c, n); }});
            std::snprintf(name, sizeof name, "stride tb=%d %d/SM double2", tb, per_sm);
            shapes.push_back(
                {name, [=](std::size_t n) { kernels::elementwise_stride<K, double2><<<grid, tb>>>(d.a, d.b, d.c, n); }});
        }
    for (const Shape& shape : shapes) {
        prepare(d, Op::out, big_n, 0);
        const Timing t = time_launches([&] { shape.launch(big_n); });
        const auto big = count_wrong<Op>(d, big_n, 0);
        prepare(d, Op::out, odd_n, guard);
        shape.launch(odd_n);
        SHAKEDOWN_CUDA_LAUNCH(shape.name.c_str());
        const auto odd = count_wrong<Op>(d, odd_n, guard);
        report(Op::name, shape.name, Op::bytes, t, verdict_of(big, odd));
    }
}

double exact_dot(std::size_t n) {
    unsigned long long sum = 0;  // products < 2^20, sums < 2^53: exact in double on the device too
    for (std::size_t i = 0; i < n; ++i) sum += (i % 1021) * (i % 1019);
    return double(sum);
}

using DotRun = std::function<double(std::size_t n)>;  // launches, finishes, returns the dot
struct DotShape {
    std::string name;
    DotRun run;
};

void probe_dot(const Device& d) {
    std::vector<DotShape> shapes;
    char name[64];
    const auto device_finish = [d](unsigned count) {
        sum_partials<<<1, 1024>>>(d.partial, count, d.result);
        double value = 0;
        SHAKEDOWN_CUDA(cudaMemcpyAsync(&value, d.result, sizeof value, cudaMemcpyDeviceToHost));
        return value;
    };
    const auto host_finish = [d](unsigned count) {
        std::vector<double> partial(count);  // pageable, as the product's
        SHAKEDOWN_CUDA(cudaMemcpyAsync(partial.data(), d.partial, count * sizeof(double), cudaMemcpyDeviceToHost));
        double value = 0;
        for (const double p : partial) value += p;
        return value;
    };
    for (int tb : {256, 512, 1024}) {
        std::snprintf(name, sizeof name, "direct tb=%d double x1 +pass2", tb);
        shapes.push_back({name, [=](std::size_t n) {
                              const unsigned g = blocks_for(n, tb);
                              dot_direct<double, 1><<<g, tb>>>(d.a, d.b, d.partial, n);
                              return device_finish(g);
                          }});
        std::snprintf(name, sizeof name, "direct tb=%d double2 x1 +pass2", tb);
        shapes.push_back({name, [=](std::size_t n) {
                              const unsigned g = blocks_for(n / 2, tb);
                              dot_direct<double2, 1><<<g, tb>>>(d.a, d.b, d.partial, n);
                              return device_finish(g);
                          }});
        std::snprintf(name, sizeof name, "direct tb=%d double2 x2 +pass2", tb);
        shapes.push_back({name, [=](std::size_t n) {
                              const unsigned g = blocks_for(n / 2, 2 * tb);
                              dot_direct<double2, 2><<<g, tb>>>(d.a, d.b, d.partial, n);
                              return device_finish(g);
                          }});
    }
    for (int tb : {256, 512, 1024})
        for (int per_sm : {1, 2, 4, 8}) {
            const unsigned g = unsigned(per_sm * d.sms);
            std::snprintf(name, sizeof name, "stride tb=%d %d/SM double +host", tb, per_sm);
            shapes.push_back({name, [=](std::size_t n) {
                                  kernels::dot_stride<double><<<g, tb>>>(d.a, d.b, d.partial, n);
                                  return host_finish(g);
                              }});
            std::snprintf(name, sizeof name, "stride tb=%d %d/SM double2 +host", tb, per_sm);
            shapes.push_back({name, [=](std::size_t n) {
                                  kernels::dot_stride<double2><<<g, tb>>>(d.a, d.b, d.partial, n);
                                  return host_finish(g);
                              }});
        }
    for (int tb : {256, 1024})
        for (int per_sm : {2, 4, 8}) {
            const unsigned g = unsigned(per_sm * d.sms);
            std::snprintf(name, sizeof name, "stride tb=%d %d/SM double2 +pass2", tb, per_sm);
            shapes.push_back({name, [=](std::size_t n) {
                                  kernels::dot_stride<double2><<<g, tb>>>(d.a, d.b, d.partial, n);
                                  return device_finish(g);
                              }});
            std::snprintf(name, sizeof name, "stride tb=%d %d/SM double2 +atomic", tb, per_sm);
            shapes.push_back({name, [=](std::size_t n) {
                                  SHAKEDOWN_CUDA(cudaMemsetAsync(d.result, 0, sizeof(double)));
                                  dot_stride_atomic<double2><<<g, tb>>>(d.a, d.b, d.result, n);
                                  double value = 0;
                                  SHAKEDOWN_CUDA(cudaMemcpyAsync(&value, d.result, sizeof value, cudaMemcpyDeviceToHost));
                                  return value;
                              }});
        }
    const double gold_big = exact_dot(big_n), gold_odd = exact_dot(odd_n);
    fill_start<<<blocks_for(big_n, 256), 256>>>(d.a, d.b, d.c, big_n);
    SHAKEDOWN_CUDA(cudaDeviceSynchronize());
    for (const DotShape& shape : shapes) {
        double value = 0;
        const Timing t = time_launches([&] { value = shape.run(big_n); });
        const double odd = shape.run(odd_n);
        SHAKEDOWN_CUDA(cudaDeviceSynchronize());
        std::string verdict = "ok";
        if (value != gold_big || odd != gold_odd) {
            char text[160];
            std::snprintf(text, sizeof text, "FAIL: 2^29: %.17g (exact %.17g); n=%zu: %.17g (exact %.17g)", value, gold_big,
                          odd_n, odd, gold_odd);
            verdict = text;
        }
        report("dot", shape.name, 16, t, verdict);
    }
}

int run(int argc, char** argv) {
    const int device = argc > 1 ? std::atoi(argv[1]) : 0;
    SHAKEDOWN_CUDA(cudaSetDevice(device));
    cudaDeviceProp props{};
    SHAKEDOWN_CUDA(cudaGetDeviceProperties(&props, device));
    gpu::DeviceBuffer<double> a(big_n), b(big_n), c(big_n);
    gpu::DeviceBuffer<double> partial(big_n / 256 + 1);  // per-block sums: up to one per 256 elements
    gpu::DeviceBuffer<double> result(1);
    gpu::DeviceBuffer<unsigned long long> counters(2);
    Device d;
    d.a = a.get();
    d.b = b.get();
    d.c = c.get();
    d.partial = partial.get();
    d.result = result.get();
    d.counters = counters.get();
    d.sms = props.multiProcessorCount;
    std::printf("STREAM launch shapes on %s (%d SMs), 2^29 doubles per array, %d timed launches after %d warm-ups\n",
                props.name, d.sms, timed_reps, warmups);
    std::printf("every variant validated at 2^29 and at n=%zu (odd: scalar tail, %zu guard elements untouched)\n", odd_n,
                guard);
    std::printf("%-6s %-34s %8s %8s  %s\n", "kernel", "shape", "median", "best", "check (GB/s)");
    probe_elementwise<Copy>(d);
    probe_elementwise<Scale>(d);
    probe_elementwise<Add>(d);
    probe_elementwise<Triad>(d);
    probe_dot(d);

    const Timing memcpy_time =
        time_launches([&] { SHAKEDOWN_CUDA(cudaMemcpyAsync(d.c, d.a, big_n * sizeof(double), cudaMemcpyDeviceToDevice)); });
    report("memcpy", "cudaMemcpy D2D (read+write)", 16, memcpy_time, "n/a");

    std::printf("\nbest validated shape per kernel (median GB/s)\n");
    for (const std::string& kernel : kernel_order)
        if (kernel != "memcpy") std::printf("  %-6s %8.1f  %s\n", kernel.c_str(), best_per_kernel[kernel].gbs,
                                            best_per_kernel[kernel].shape.c_str());
    std::printf("probe done: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
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
