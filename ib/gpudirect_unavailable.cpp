// Built without CUDA: gpudirect_rdma is still listed and waives with the reason (the RDMA
// reason first, as on a CUDA build).
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "ib/rdma_waiver.hpp"

namespace shakedown::ib {
namespace {

class GpudirectUnavailable final : public Test {
public:
    std::string_view key() const override { return "gpudirect_rdma"; }
    std::string_view description() const override { return "GPUDirect RDMA (not built: no CUDA)"; }
    std::vector<std::string> suites() const override { return {"full"}; }
    std::optional<std::string> waiver(const RunContext&) const override {
        if (auto none = no_rdma_device_waiver(*make_system_verbs())) return none;
        return "no CUDA device (built without CUDA)";
    }
    TestResult run(const RunContext&) const override { return {}; }
};

}  // namespace

SHAKEDOWN_REGISTER_TEST(GpudirectUnavailable);

}  // namespace shakedown::ib
