// Order statistics over the repetitions of one measurement. Medians are what we report as
// "the" figure (robust to a single preempted repetition); min and max bound the spread.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace shakedown::kernels {

struct Spread {
    double median = 0.0;
    double min = 0.0;
    double max = 0.0;
};

inline Spread spread_of(std::vector<double> values) {
    if (values.empty()) throw std::invalid_argument("spread_of: no values");
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    const double median = n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
    return {median, values.front(), values.back()};
}

}  // namespace shakedown::kernels
