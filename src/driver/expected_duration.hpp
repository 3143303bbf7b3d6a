// How long a test is expected to run, for the heartbeat's "120 s of ~600 s": the value of the
// test's declared duration parameter (burnin's duration_s), else an estimate declared in the one
// table of expected_duration.cpp, else unknown. Nothing is guessed from deadlines: a deadline is
// a bound, not an expectation.
#pragma once

#include "core/params.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace shakedown {

struct ExpectedDuration {
    std::optional<double> seconds;  // nothing: unknown
    std::string source;             // "parameter duration_s", "estimate: <basis>", "unknown"
};

// One row per test that has an expectation: either the real parameter that sets its length, or
// an estimate with what it rests on. A test not in the table is unknown.
struct DurationDeclaration {
    std::string_view test;
    std::string_view parameter;  // empty: use estimate_s
    double estimate_s = 0.0;
    std::string_view basis;      // where the estimate comes from (machine, date, configuration)
};

std::span<const DurationDeclaration> duration_declarations();

// `params`: the test's resolved parameters (suite presets and the config applied).
ExpectedDuration expected_duration(std::string_view test, const TestParams& params,
                                   std::span<const DurationDeclaration> table = duration_declarations());

}  // namespace shakedown
