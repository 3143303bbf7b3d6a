#include "analysis/rules/health/telemetry_series.hpp"

#include "core/clock.hpp"

#include <algorithm>
#include <cmath>

namespace shakedown::analysis {

double Series::rise() const {
    double total = 0;
    for (std::size_t i = 1; i < value.size(); ++i)
        if (value[i] > value[i - 1]) total += value[i] - value[i - 1];
    return total;
}

double Series::max() const { return *std::max_element(value.begin(), value.end()); }

double Series::min() const { return *std::min_element(value.begin(), value.end()); }

Series column_series(const SampleTable& table, std::string_view name, std::string_view time_column) {
    Series out;
    const auto column = table.column_index(name);
    const auto time = table.column_index(time_column);
    if (!column || !time) return out;
    for (const auto& row : table.rows()) {
        if (!std::isfinite(row[*column])) continue;
        out.t.push_back(row[*time]);
        out.value.push_back(row[*column]);
    }
    return out;
}

std::string clock_time(double utc) { return std::isfinite(utc) ? format_utc(utc).substr(11, 8) : "?"; }

}  // namespace shakedown::analysis
