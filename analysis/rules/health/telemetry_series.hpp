// One column of a telemetry table as the health rules judge it: its finite readings in time
// order with their times (a NaN reading, a counter that could not be read, is left out).
#pragma once

#include "core/result.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace shakedown::analysis {

struct Series {
    std::vector<double> t;
    std::vector<double> value;
    bool empty() const { return value.empty(); }
    double first() const { return value.front(); }
    double last() const { return value.back(); }
    // Forward steps only: a counter reset (driver reload) is not a negative rise.
    double rise() const;
    double max() const;
    double min() const;
};

// `name`'s finite readings, each with the value of `time_column` in its row (none when either
// column is absent).
Series column_series(const SampleTable& table, std::string_view name, std::string_view time_column);

// "HH:MM:SS" of a UTC time, "?" when it is not finite.
std::string clock_time(double utc);

}  // namespace shakedown::analysis
