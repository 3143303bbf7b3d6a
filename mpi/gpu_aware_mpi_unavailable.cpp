// gpu_aware_mpi in a build without CUDA: listed, and waived with the reason.
#include "core/registry.hpp"
#include "mpi/gpu_aware_mpi_waiver.hpp"

namespace shakedown::mpi {
namespace {

class GpuAwareMpiUnavailable final : public Test {
public:
    std::string_view key() const override { return "gpu_aware_mpi"; }
    std::string_view description() const override { return "MPI point-to-point from GPU memory (not built: needs CUDA)"; }
    std::vector<std::string> suites() const override { return {"full"}; }
    std::optional<std::string> waiver(const RunContext& ctx) const override { return gpu_aware_mpi_waiver(ctx, false); }
    TestResult run(const RunContext&) const override { return {}; }
};

}  // namespace

SHAKEDOWN_REGISTER_TEST(GpuAwareMpiUnavailable);

}  // namespace shakedown::mpi
