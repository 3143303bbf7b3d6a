// Shared by the telemetry source tests: one sampled row's value by column name.
#pragma once

#include "telemetry/telemetry_source.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace shakedown {

// The value of column `name` in a row `source` sampled; a missing column fails the test.
inline double column(const TelemetrySource& source, const std::vector<double>& row, const std::string& name) {
    const auto columns = source.columns();
    for (std::size_t i = 0; i < columns.size(); ++i)
        if (columns[i].name == name) return row.at(i);
    ADD_FAILURE() << "no column " << name;
    return std::nan("");
}

}  // namespace shakedown
