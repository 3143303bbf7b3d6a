// Looking up what a test recorded, by name: shared by every test area so that each test file
// asserts on values instead of repeating the search.
#pragma once

#include "core/result.hpp"
#include "trace/trace_format.hpp"

#include <optional>
#include <string_view>

namespace shakedown::testing {

// The metric called `name`, or nullptr when the test did not record it.
inline const Metric* find_metric(const TestResult& result, std::string_view name) {
    for (const auto& metric : result.metrics)
        if (metric.name == name) return &metric;
    return nullptr;
}

// Its value alone, for tests that only compare numbers.
inline std::optional<double> metric(const TestResult& result, std::string_view name) {
    const Metric* found = find_metric(result, name);
    return found != nullptr ? std::optional(found->value) : std::nullopt;
}

// The result of test `key` in a trace read back, or nullptr.
inline const TestResult* find_test(const Trace& trace, std::string_view key) {
    for (const auto& test : trace.tests)
        if (test.key == key) return &test;
    return nullptr;
}

}  // namespace shakedown::testing
