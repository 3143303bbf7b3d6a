// Built without UCX: ucx_perf is still listed and waives with the reason.
#include "core/registry.hpp"
#include "core/run_context.hpp"

namespace shakedown::ib {
namespace {

class UcxPerfUnavailable final : public Test {
public:
    std::string_view key() const override { return "ucx_perf"; }
    std::string_view description() const override { return "UCX tag/put/get latency and bandwidth (not built: no UCX)"; }
    std::vector<std::string> suites() const override { return {"quick", "full", "pairwise"}; }
    std::optional<std::string> waiver(const RunContext&) const override { return "built without UCX (libucx-dev)"; }
    TestResult run(const RunContext&) const override { return {}; }
};

}  // namespace

SHAKEDOWN_REGISTER_TEST(UcxPerfUnavailable);

}  // namespace shakedown::ib
