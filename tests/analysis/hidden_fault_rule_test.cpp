// The hidden-fault rule's declared parts: the Xid table and the gpu_health thresholds keys, and the
// InfiniBand link-flap counters (link_downed, link_error_recovery) through the port counter rule on
// a table shaped as the fake-sysfs RDMA port source writes it. The rule itself on NVML tables runs
// end to end in tests/telemetry/gpu_health_e2e_test.cpp (driver + fake NVML + analyzer).
#include "analysis/rules/health/port_counter_rule.hpp"
#include "analysis/rules/health/xid_catalogue.hpp"
#include "analysis/rules/settings/thresholds.hpp"

#include <gtest/gtest.h>

#include <array>
#include <set>
#include <vector>

namespace shakedown::analysis {
namespace {

TEST(XidCatalogue, HardwareXidsFailApplicationXidsWarnNumbersUnique) {
    std::set<unsigned> seen;
    for (const XidEntry& entry : xid_catalogue) {
        EXPECT_TRUE(seen.insert(entry.xid).second) << "Xid " << entry.xid << " twice";
        EXPECT_FALSE(entry.meaning.empty());
        EXPECT_FALSE(entry.action.empty());
    }
    for (unsigned xid : {48u, 63u, 64u, 74u, 79u, 94u, 95u}) {
        ASSERT_TRUE(xid_entry(xid)) << xid;
        EXPECT_EQ(xid_entry(xid)->level, Level::fail) << xid;
        EXPECT_NE(xid_entry(xid)->action.find("drain"), std::string_view::npos) << xid;
    }
    for (unsigned xid : {13u, 31u, 43u, 45u}) {
        ASSERT_TRUE(xid_entry(xid)) << xid;
        EXPECT_EQ(xid_entry(xid)->level, Level::warn) << xid;
    }
    EXPECT_FALSE(xid_entry(4242));
    EXPECT_EQ(xid_entry(79)->meaning, "GPU has fallen off the bus");
}

TEST(GpuHealthThresholds, KeysParseMergeAndReject) {
    const auto built_in = Thresholds::built_in().settings();
    EXPECT_TRUE(built_in.gpu_health_rule_enabled());
    EXPECT_EQ(built_in.pcie_replay_fail_rise_or_default(), 1000.0);
    EXPECT_FALSE(built_in.nvlink_expected_links);
    const auto user = Thresholds::built_in().overridden_by(Thresholds::parse(
        "metrics:\ngpu_health: {pcie_replay_fail_rise: 50, nvlink_expected_links: 12}\n", "u.yaml"));
    EXPECT_EQ(user.settings().pcie_replay_fail_rise_or_default(), 50.0);
    EXPECT_EQ(user.settings().nvlink_expected_links, 12.0);
    const auto off = Thresholds::built_in().overridden_by(Thresholds::parse("metrics:\ngpu_health: {enabled: false}\n", "u.yaml"));
    EXPECT_FALSE(off.settings().gpu_health_rule_enabled());
    EXPECT_THROW(Thresholds::parse("metrics:\ngpu_health: {pcie_replay_fail_rise: -3}\n", "u.yaml"), std::exception);
    EXPECT_THROW(Thresholds::parse("metrics:\ngpu_health: {replays: 3}\n", "u.yaml"), std::exception);
}

// A link that flapped: link_downed and link_error_recovery rose, as the fake-sysfs port source
// records them. link_downed FAILs and drains (rule link_flap); link_error_recovery (retrained, the
// link stayed up) WARNs (rule link_error_recovery, port_counters.warn_counters). Each its own
// finding naming the counter with its first and last readings.
SampleTable flap_table(std::vector<std::array<double, 2>> downed_recovery) {
    SampleTable table({{"t", "s"},
                       {"counters_t", "s"},
                       {"state", "1"},
                       {"phys_state", "1"},
                       {"rate_gbps", "Gb/s"},
                       {"error_link_downed", "1"},
                       {"error_link_error_recovery", "1"}});
    const double t0 = 1764480000.5;
    for (std::size_t i = 0; i < downed_recovery.size(); ++i)
        table.add_row({t0 + i, t0 + i, 4, 5, 400, downed_recovery[i][0], downed_recovery[i][1]});
    return table;
}

TEST(LinkFlapFakeSysfs, LinkDownedFailsAndDrainsRecoveryWarns) {
    const RankIdentity leader{.rank = 0, .node = "node0003"};
    const auto findings = port_counter_findings(leader, {{"mlx5_1_port1", flap_table({{1, 3}, {2, 5}, {2, 5}})}},
                                                Thresholds::built_in().settings());
    ASSERT_EQ(findings.size(), 2u);
    EXPECT_EQ(findings[0].level, Level::fail);
    EXPECT_EQ(findings[0].reason,
              "mlx5_1 port 1: link_downed +1 during the run: the link went down and came back (05:20:00-05:20:02) "
              "[rule link_flap]");
    EXPECT_EQ(findings[0].metric, "error_link_downed");
    EXPECT_EQ(findings[0].reference, 1.0);
    EXPECT_EQ(findings[0].value, 2.0);
    EXPECT_TRUE(findings[0].drains());
    EXPECT_EQ(findings[1].level, Level::warn);
    EXPECT_EQ(findings[1].metric, "error_link_error_recovery");
    EXPECT_NE(findings[1].reason.find("link_error_recovery +2 during the run"), std::string::npos) << findings[1].reason;
    EXPECT_NE(findings[1].reason.find("[rule link_error_recovery]"), std::string::npos) << findings[1].reason;
    EXPECT_FALSE(findings[1].drains());
}

TEST(LinkFlapFakeSysfs, SteadyCountersGiveNoFinding) {
    const RankIdentity leader{.rank = 0, .node = "node0003"};
    EXPECT_TRUE(port_counter_findings(leader, {{"mlx5_1_port1", flap_table({{2, 5}, {2, 5}, {2, 5}})}},
                                      Thresholds::built_in().settings())
                    .empty());
}

TEST(LinkFlapThresholds, WarnCountersAreDeclaredAndOverridable) {
    EXPECT_TRUE(Thresholds::built_in().settings().port_counter_warns("link_error_recovery"));
    EXPECT_FALSE(Thresholds::built_in().settings().port_counter_warns("link_downed"));
    // A site that wants recoveries to fail too lists none.
    const auto strict = Thresholds::built_in().overridden_by(
        Thresholds::parse("metrics:\nport_counters: {warn_counters: []}\n", "u.yaml"));
    EXPECT_FALSE(strict.settings().port_counter_warns("link_error_recovery"));
    const RankIdentity leader{.rank = 0, .node = "n"};
    const auto findings =
        port_counter_findings(leader, {{"mlx5_1_port1", flap_table({{2, 3}, {2, 5}})}}, strict.settings());
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].level, Level::fail);
    EXPECT_THROW(Thresholds::parse("metrics:\nport_counters: {warn_counters: link_downed}\n", "u.yaml"), std::exception);
}

}  // namespace
}  // namespace shakedown::analysis
