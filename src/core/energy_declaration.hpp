// What a test declares about the energy its work takes, so that one analyzer step
// (analysis/energy/energy_figures) turns the device's power over the test's timed phase
// (TestResult::measured) into joules per unit of work and work per watt, the same way for every
// test. The test declares this beside its other names (its *_names.hpp); the analyzer reads the
// declaration, never the test's keys as strings.
#pragma once

#include <array>
#include <string_view>

namespace shakedown {

// One unit of work and the figure its rate comes from.
struct EnergyUnit {
    std::string_view unit;         // "TFLOP", "million tokens", "step": joules per this
    std::string_view rate_metric;  // the figure that says how fast units were done (empty: none)
    // rate_metric is a rate (units per second = value x units_per_rate_unit) or, with
    // seconds_per_unit, the seconds one unit took.
    double units_per_rate_unit = 1.0;
    bool seconds_per_unit = false;
};

struct EnergyDeclaration {
    std::string_view test;  // the test's key
    std::array<EnergyUnit, 2> units;  // the second's unit empty where a test has one
    // The usable rate per watt and, with the rate's nominal over the device's power limit, the
    // part's own per watt beside it (empty: the test has no such figure).
    std::string_view per_watt_metric;
    std::string_view per_watt_unit;  // "TFLOP/s per W"
};

}  // namespace shakedown
