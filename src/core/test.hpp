// A shakedown test: its declaration (core/test_spec.hpp), a way to waive itself on a node that
// lacks what it needs, and run(). Tests are stateless values; everything a run needs arrives
// through the RunContext.
#pragma once

#include "core/test_spec.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown {

class RunContext;

class Test {
public:
    explicit Test(const TestSpec& spec) : spec_(spec) {}
    virtual ~Test() = default;
    Test(const Test&) = delete;
    Test& operator=(const Test&) = delete;

    const TestSpec& spec() const { return spec_; }
    std::string_view key() const { return spec_.key; }
    std::string_view description() const { return spec_.description; }
    const std::vector<std::string>& suites() const { return spec_.suites; }
    const std::vector<ParamSpec>& parameters() const { return spec_.parameters; }
    double default_deadline_s() const { return spec_.default_deadline_s; }

    // Checks a value only this build and node can judge (an RDMA device by name) before any rank
    // starts work: throw InputError, and the driver exits with 2 naming the test. Called on every
    // rank after the declaration's checks.
    virtual void check_on_node(const TestParams& /*params*/) const {}

    // Reason this rank cannot run the test ("no CUDA device"), or nothing. Ranks that waive
    // are left out of the communicator the others run with (RunContext::comm()).
    virtual std::optional<std::string> waiver(const RunContext&) const { return std::nullopt; }

    // Collective over ctx.comm(). Fills metrics (name and value: unit and direction come from
    // the declaration), samples and a verdict; throwing is turned into status "error" with the
    // exception's text by the driver.
    virtual TestResult run(const RunContext& ctx) const = 0;

private:
    const TestSpec& spec_;
};

}  // namespace shakedown
