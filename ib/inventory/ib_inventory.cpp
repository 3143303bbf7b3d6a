// ib_inventory: every HCA port of the node (state, physical state, speed and width -> nominal
// Gb/s, MTU, link layer, LID, GID table with RoCE v2 entries, firmware, NUMA node, PCI
// address), checked against the expected rate, MTU and state, and the port error counters
// read at the start and again after `counter_window_s`: any error counter that grew fails.
// The absolute readings are kept with their times, so the analyzer can diff the first and
// last reading of a whole suite (run ib_inventory first and last).
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "ib/inventory/inventory_report.hpp"
#include "ib/rdma_waiver.hpp"
#include "ib/specs.hpp"

#include <fmt/format.h>

#include <chrono>
#include <thread>

namespace shakedown::ib {
namespace {

class IbInventory final : public Test {
public:
    IbInventory() : Test(ib_inventory_spec()) {}

    std::optional<std::string> waiver(const RunContext&) const override {
        return no_rdma_device_waiver(*make_system_verbs());
    }

    TestResult run(const RunContext& ctx) const override {
        const auto api = make_system_verbs();
        const auto& params = ctx.params();
        const std::string& state = params.text("expected_state");
        const PortExpectations expected{params.optional_real("expected_rate_gbps").value_or(0.0),
                                        static_cast<int>(params.optional_integer("expected_mtu").value_or(0)),
                                        state == "any" ? std::string() : state};
        return report_hca_inventory(*api, expected, [&] {
            std::this_thread::sleep_for(std::chrono::duration<double>(params.real("counter_window_s")));
        });
    }
};

}  // namespace

SHAKEDOWN_REGISTER_TEST(IbInventory);

}  // namespace shakedown::ib
