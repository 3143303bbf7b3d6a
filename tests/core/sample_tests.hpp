// Two small registered tests for the core's unit tests (this executable only).
#pragma once

#include "core/registry.hpp"
#include "core/run_context.hpp"

namespace shakedown::testing {

inline const TestSpec& alpha_spec() {
    static const TestSpec spec{
        .key = "alpha",
        .description = "first sample test",
        .suites = {"quick", "full"},
        .parameters = {ParamSpec::integer("size_mib", 64, "array size").between(1, 1024).in_suite("full", 256),
                       ParamSpec::real("ratio", 0.5, "a fraction").between(0, 4),
                       ParamSpec::text("mode", "fast", "a name"),
                       ParamSpec::flag("verify", true, "check results"),
                       ParamSpec::choice("device", "auto", {"auto", "host", "gpu"}, "where"),
                       ParamSpec::integer("n", automatic, "an order").allow_auto("picked by the test").at_least(1),
                       ParamSpec::integers("sizes", {8, 1024}, "message sizes").between(0, 65536),
                       ParamSpec::names("operations", {"write", "read"}, {"write", "read", "send"}, "operations")},
        .metrics = {{"alpha.{copy,triad}_gbs", "GB/s", Better::higher, "rates"}, {"alpha.latency_us", "us", Better::lower, ""}},
    };
    return spec;
}

inline const TestSpec& beta_spec() {
    static const TestSpec spec{
        .key = "beta", .description = "second sample test", .suites = {"full"}, .samples = {{"size", "B"}, {"seconds", "s"}}};
    return spec;
}

// Declared only: stands for a test whose code a build leaves out.
inline const TestSpec& delta_spec() {
    static const TestSpec spec{
        .key = "delta", .description = "a test this build lacks", .suites = {"full"}, .needs = {Feature::cuda, Feature::nccl}};
    return spec;
}

class AlphaTest final : public Test {
public:
    AlphaTest() : Test(alpha_spec()) {}
    TestResult run(const RunContext&) const override { return {}; }
};

class BetaTest final : public Test {
public:
    BetaTest() : Test(beta_spec()) {}
    TestResult run(const RunContext&) const override { return {}; }
};

}  // namespace shakedown::testing
