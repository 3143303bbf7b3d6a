// The configuration agreement rule on hand-made inventories: a node with another driver or
// kernel is named with both values and the majority's count; without a strict majority every node
// is named; a node that did not record a fact is left out of that fact; an identical fleet, and a
// fleet where only one node recorded a fact, have no finding.
#include "analysis/load/observations.hpp"
#include "analysis/load/run_details.hpp"
#include "analysis/rules/figures/configuration_agreement_rule.hpp"
#include "analysis_fixtures.hpp"
#include "inventory/inventory_names.hpp"

#include <gtest/gtest.h>

namespace shakedown::analysis {
namespace {

namespace names = inventory_names;

nlohmann::json inventory(const std::string& driver, const std::string& kernel) {
    nlohmann::json recorded = {{names::os::section, {{names::os::kernel, kernel}}},
                               {names::versions::section, {{names::versions::nccl, "2.28.9"}}}};
    if (!driver.empty()) recorded[names::nvml::section] = {{names::nvml::driver_version, driver}};
    return recorded;
}

// One rank per node; node i records inventories[i] (null: no inventory read).
std::vector<Finding> findings_for(const std::vector<nlohmann::json>& inventories) {
    auto traces = testing::healthy_traces(static_cast<int>(inventories.size()), 1);
    for (std::size_t i = 0; i < traces.size(); ++i) traces[i].inventory = inventories[i];
    LoadedRun run = testing::loaded_run(traces);
    for (RankRecord& rank : run.ranks) rank.inventory_read = true;
    const Observations observations(run);
    RunDetails details(run);
    return configuration_agreement_findings(observations, details);
}

TEST(ConfigurationAgreement, TheNodeThatDiffersIsNamedWithBothValues) {
    const auto found = findings_for({inventory("580.95.05", "6.8.0-87"), inventory("580.95.05", "6.8.0-87"),
                                     inventory("570.86.15", "6.8.0-87"), inventory("580.95.05", "6.8.0-90")});
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].node, "node0002");
    EXPECT_EQ(found[0].reason,
              "GPU driver 570.86.15 differs from the 3 of 4 nodes that have 580.95.05 [rule configuration_drift]");
    EXPECT_EQ(found[1].node, "node0003");
    EXPECT_EQ(found[1].reason,
              "kernel 6.8.0-90 differs from the 3 of 4 nodes that have 6.8.0-87 [rule configuration_drift]");
    for (const Finding& finding : found) {
        EXPECT_EQ(finding.level, Level::fail);
        EXPECT_EQ(finding.cause, Cause::configuration);
        EXPECT_EQ(finding.test, configuration_check);
        EXPECT_EQ(finding.source, FindingSource::configuration_drift);
        EXPECT_FALSE(finding.gpu.has_value());
    }
}

TEST(ConfigurationAgreement, WithoutAStrictMajorityEveryNodeIsNamed) {
    const auto found = findings_for({inventory("580.95.05", "6.8.0-87"), inventory("570.86.15", "6.8.0-87")});
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].reason,
              "GPU driver 580.95.05: the 2 nodes compared agree on no version (570.86.15 (1 node); 580.95.05 (1 node)) "
              "[rule configuration_drift]");
    EXPECT_EQ(found[1].node, "node0001");
}

TEST(ConfigurationAgreement, AnIdenticalFleetOrAFactOneNodeRecordedIsNotFlagged) {
    EXPECT_TRUE(findings_for({inventory("580.95.05", "6.8.0-87"), inventory("580.95.05", "6.8.0-87"),
                              inventory("580.95.05", "6.8.0-87")})
                    .empty());
    // Only node 0 has a driver (the others have no NVML): nothing to compare it with.
    EXPECT_TRUE(
        findings_for({inventory("580.95.05", "6.8.0-87"), inventory("", "6.8.0-87"), inventory("", "6.8.0-87")}).empty());
    // A node without an inventory is not a disagreeing node.
    EXPECT_TRUE(
        findings_for({inventory("580.95.05", "6.8.0-87"), inventory("580.95.05", "6.8.0-87"), nlohmann::json()}).empty());
}

}  // namespace
}  // namespace shakedown::analysis
