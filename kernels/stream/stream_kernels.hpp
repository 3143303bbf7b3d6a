// STREAM's five kernels as data: which arrays each reads and writes and how many flops it
// does per element. Every rate (GB/s, GFLOP/s) is derived from this one table, and the
// gold values come from running the same kernel sequence on scalars (the BabelStream way):
// every element of an array holds the same value, so one scalar per array is the answer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::kernels {

enum class StreamKernel { copy, scale, add, triad, dot };
enum class StreamArray { a, b, c };

struct StreamKernelInfo {
    StreamKernel id;
    std::string_view name;
    int arrays_read;
    int arrays_written;
    int flops_per_element;

    std::size_t bytes_per_element() const {
        return static_cast<std::size_t>(arrays_read + arrays_written) * sizeof(double);
    }
};

// In the order one repetition runs them: c = a; b = s*c; c = a + b; a = b + s*c; sum = a.b
inline constexpr std::array<StreamKernelInfo, 5> stream_kernel_table{{
    {StreamKernel::copy, "copy", 1, 1, 0},
    {StreamKernel::scale, "scale", 1, 1, 1},
    {StreamKernel::add, "add", 2, 1, 1},
    {StreamKernel::triad, "triad", 2, 1, 2},
    {StreamKernel::dot, "dot", 2, 0, 2},
}};

inline constexpr double stream_scalar = 0.4;
inline constexpr double stream_start_a = 0.1;
inline constexpr double stream_start_b = 0.2;
inline constexpr double stream_start_c = 0.0;

const StreamKernelInfo& info(StreamKernel kernel);
std::string_view name(StreamArray array);
// The kernel that wrote the array last in a repetition: a failure names it.
StreamKernel last_writer(StreamArray array);

double gigabytes_per_second(StreamKernel kernel, std::size_t elements, double seconds);

// The value every element of each array holds after `repetitions` full repetitions, and the
// dot product of the last one.
struct StreamGold {
    double a = stream_start_a;
    double b = stream_start_b;
    double c = stream_start_c;
    double dot = 0.0;
    double of(StreamArray array) const;
};
StreamGold stream_gold(std::int64_t repetitions, std::size_t elements);

// Element-wise tolerance: the device computes the same operations in the same order as the
// scalar gold; fused multiply-add may change the last bit of each step, which is all this
// admits (a few ulps per repetition, far below any real corruption).
double stream_element_tolerance(std::int64_t repetitions);
// Dot-product tolerance: the worst-case bound of recursive summation, n * eps.
double stream_dot_tolerance(std::size_t elements);

// What a check of one array found: how many elements are off and the first few of them.
struct StreamMismatch {
    std::size_t index = 0;
    double value = 0.0;
};
struct StreamArrayCheck {
    std::size_t mismatches = 0;
    std::vector<StreamMismatch> first;  // at most the cap given to the check, by index
};
inline constexpr std::size_t stream_mismatch_print_cap = 5;

// "triad wrote a[1234] = -0.08 (expected 0.08, relative error 2); 1 element(s) wrong"
std::string describe_failure(StreamArray array, double gold, const StreamArrayCheck& check);

}  // namespace shakedown::kernels
