#include "kernels/stream/stream_kernels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace shakedown::kernels {

const StreamKernelInfo& info(StreamKernel kernel) {
    for (const auto& entry : stream_kernel_table)
        if (entry.id == kernel) return entry;
    throw std::logic_error("stream kernel missing from the table");
}

std::string_view name(StreamArray array) {
    switch (array) {
    case StreamArray::a: return "a";
    case StreamArray::b: return "b";
    case StreamArray::c: return "c";
    }
    return "?";
}

StreamKernel last_writer(StreamArray array) {
    switch (array) {
    case StreamArray::a: return StreamKernel::triad;
    case StreamArray::b: return StreamKernel::scale;
    case StreamArray::c: return StreamKernel::add;
    }
    return StreamKernel::copy;
}

double gigabytes_per_second(StreamKernel kernel, std::size_t elements, double seconds) {
    const double bytes = static_cast<double>(info(kernel).bytes_per_element()) * static_cast<double>(elements);
    return seconds > 0.0 ? bytes / seconds * 1e-9 : 0.0;
}

double StreamGold::of(StreamArray array) const {
    switch (array) {
    case StreamArray::a: return a;
    case StreamArray::b: return b;
    case StreamArray::c: return c;
    }
    return 0.0;
}

StreamGold stream_gold(std::int64_t repetitions, std::size_t elements) {
    StreamGold gold;
    for (std::int64_t rep = 0; rep < repetitions; ++rep) {
        gold.c = gold.a;
        gold.b = stream_scalar * gold.c;
        gold.c = gold.a + gold.b;
        gold.a = gold.b + stream_scalar * gold.c;
    }
    gold.dot = gold.a * gold.b * static_cast<double>(elements);
    return gold;
}

double stream_element_tolerance(std::int64_t repetitions) {
    constexpr double eps = std::numeric_limits<double>::epsilon();
    return std::max(1e-12, 8.0 * eps * static_cast<double>(repetitions));
}

double stream_dot_tolerance(std::size_t elements) {
    constexpr double eps = std::numeric_limits<double>::epsilon();
    return std::max(1e-12, eps * static_cast<double>(elements));
}

std::string describe_failure(StreamArray array, double gold, const StreamArrayCheck& check) {
    std::string text = fmt::format("{} wrote wrong values into {}:", info(last_writer(array)).name, name(array));
    for (const auto& bad : check.first) {
        const double error = gold != 0.0 ? std::abs(bad.value - gold) / std::abs(gold) : std::abs(bad.value);
        text += fmt::format(" {}[{}] = {:.17g} (expected {:.17g}, relative error {:.3g});", name(array), bad.index,
                            bad.value, gold, error);
    }
    text += fmt::format(" {} element(s) wrong", check.mismatches);
    return text;
}

}  // namespace shakedown::kernels
