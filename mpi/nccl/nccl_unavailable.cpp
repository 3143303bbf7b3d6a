// Registered when shakedown is built without NCCL: `shakedown list` still shows the test, and
// a run says why it did not happen instead of silently leaving it out.
#include "core/registry.hpp"

namespace shakedown::mpi {
namespace {

class NcclUnavailable final : public Test {
public:
    std::string_view key() const override { return "nccl"; }
    std::string_view description() const override { return "NCCL collectives (not built: needs CUDA and NCCL)"; }
    std::vector<std::string> suites() const override { return {"quick", "full"}; }
    std::optional<std::string> waiver(const RunContext&) const override {
        return "shakedown was built without NCCL (SHAKEDOWN_WITH_NCCL / CUDA not found)";
    }
    TestResult run(const RunContext&) const override { return {}; }
};

}  // namespace

SHAKEDOWN_REGISTER_TEST(NcclUnavailable);

}  // namespace shakedown::mpi
