// A shakedown test: a stable key, the suites it belongs to, the parameters it accepts, a way
// to waive itself on a node that lacks what it needs, and run(). Tests are stateless values;
// everything a run needs arrives through the RunContext.
#pragma once

#include "core/params.hpp"
#include "core/result.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown {

class RunContext;

class Test {
public:
    virtual ~Test() = default;

    virtual std::string_view key() const = 0;          // stable snake_case, e.g. "host_stream"
    virtual std::string_view description() const = 0;  // one line for `shakedown list`
    virtual std::vector<std::string> suites() const = 0;
    virtual std::vector<ParamSpec> parameters() const { return {}; }
    virtual double default_deadline_s() const { return 300.0; }

    // Checks parameter values that types alone cannot (ranges, names, rank numbers) before
    // any rank starts work or a run folder exists: throw InputError with one line and the
    // driver exits with code 2. Called on every rank with the same arguments.
    virtual void check_parameters(const TestParams& /*params*/, int /*world_size*/) const {}

    // Reason this rank cannot run the test ("no CUDA device"), or nothing. Ranks that waive
    // are left out of the communicator the others run with (RunContext::comm()).
    virtual std::optional<std::string> waiver(const RunContext&) const { return std::nullopt; }

    // Collective over ctx.comm(). Fills metrics, samples and a verdict; throwing is turned
    // into status "error" with the exception's text by the driver.
    virtual TestResult run(const RunContext& ctx) const = 0;
};

}  // namespace shakedown
