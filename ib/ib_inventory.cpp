// ib_inventory: every HCA port of the node (state, physical state, speed and width -> nominal
// Gb/s, MTU, link layer, LID, GID table with RoCE v2 entries, firmware, NUMA node, PCI
// address), checked against the expected rate, MTU and state, and the port error counters
// read at the start and again after `counter_window_s`: any error counter that grew fails.
// The absolute readings are kept with their times, so the analyzer can diff the first and
// last reading of a whole suite (run ib_inventory first and last).
#include "core/errors.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "ib/inventory_report.hpp"
#include "ib/rdma_waiver.hpp"

#include <fmt/format.h>

#include <chrono>
#include <thread>

namespace shakedown::ib {
namespace {

class IbInventory final : public Test {
public:
    std::string_view key() const override { return "ib_inventory"; }
    std::string_view description() const override {
        return "RDMA HCAs and ports (rate, MTU, link layer, GIDs, firmware, NUMA) checked against expectations; "
               "port error counters before/after";
    }
    std::vector<std::string> suites() const override { return {"quick", "full"}; }
    double default_deadline_s() const override { return 60.0; }

    std::vector<ParamSpec> parameters() const override {
        return {
            {"expected_rate_gbps", ParamKind::real, 0.0, "lowest acceptable port rate in Gb/s; 0: not checked"},
            {"expected_mtu", ParamKind::integer, std::int64_t{0}, "expected active MTU in bytes; 0: not checked"},
            {"expected_state", ParamKind::text, std::string("ACTIVE"), "expected port state; empty: not checked"},
            {"counter_window_s", ParamKind::real, 1.0, "seconds between the two error-counter readings"},
        };
    }

    void check_parameters(const TestParams& params, int) const override {
        if (params.real("expected_rate_gbps") < 0)
            throw InputError("parameter 'expected_rate_gbps' must be 0 (not checked) or positive");
        const auto mtu = params.integer("expected_mtu");
        if (mtu != 0 && mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096)
            throw InputError(fmt::format("parameter 'expected_mtu' must be 0 or one of 256, 512, 1024, 2048, 4096, got {}", mtu));
        const auto& state = params.text("expected_state");
        if (!state.empty() && state != "ACTIVE" && state != "DOWN" && state != "INIT" && state != "ARMED")
            throw InputError(fmt::format("parameter 'expected_state' must be ACTIVE, DOWN, INIT, ARMED or empty, got '{}'", state));
        const double window = params.real("counter_window_s");
        if (window < 0 || window > 3600) throw InputError("parameter 'counter_window_s' must be between 0 and 3600");
    }

    std::optional<std::string> waiver(const RunContext&) const override {
        return no_rdma_device_waiver(*make_system_verbs());
    }

    TestResult run(const RunContext& ctx) const override {
        const auto api = make_system_verbs();
        const auto& params = ctx.params();
        const PortExpectations expected{params.real("expected_rate_gbps"), static_cast<int>(params.integer("expected_mtu")),
                                        params.text("expected_state")};
        return report_hca_inventory(*api, expected, [&] {
            std::this_thread::sleep_for(std::chrono::duration<double>(params.real("counter_window_s")));
        });
    }
};

}  // namespace

SHAKEDOWN_REGISTER_TEST(IbInventory);

}  // namespace shakedown::ib
