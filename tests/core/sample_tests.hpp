// Two small registered tests for the core's unit tests (this executable only).
#pragma once

#include "core/registry.hpp"
#include "core/run_context.hpp"

namespace shakedown::testing {

class AlphaTest final : public Test {
public:
    std::string_view key() const override { return "alpha"; }
    std::string_view description() const override { return "first sample test"; }
    std::vector<std::string> suites() const override { return {"quick", "full"}; }
    std::vector<ParamSpec> parameters() const override {
        return {{"size_mib", ParamKind::integer, std::int64_t{64}, "array size"},
                {"ratio", ParamKind::real, 0.5, "a fraction"},
                {"mode", ParamKind::text, std::string("auto"), "a name"},
                {"verify", ParamKind::flag, true, "check results"}};
    }
    TestResult run(const RunContext&) const override { return {}; }
};

class BetaTest final : public Test {
public:
    std::string_view key() const override { return "beta"; }
    std::string_view description() const override { return "second sample test"; }
    std::vector<std::string> suites() const override { return {"full"}; }
    TestResult run(const RunContext&) const override { return {}; }
};

}  // namespace shakedown::testing
