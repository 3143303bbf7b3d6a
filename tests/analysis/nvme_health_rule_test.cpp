// The NVMe health rule over a node leader's "nvme_health" table: a healthy drive gives nothing; a
// critical warning or a media error FAILs naming the drive, the bits and the rule; wear at the
// setting WARNs; a drive whose log could not be read (NaN) gives nothing.
#include "analysis/rules/health/nvme_health_rule.hpp"
#include "analysis/rules/settings/analysis_settings.hpp"
#include "analysis/rules/settings/thresholds.hpp"
#include "telemetry/nvme_health_columns.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <map>

namespace shakedown::analysis {
namespace {

namespace col = nvme_health_columns;

// One drive, nvme0, read three times: `fields(i)` gives reading i's fields in col::fields' order.
SampleTable drive_table(const std::function<std::array<double, 7>(int)>& fields) {
    std::vector<SampleTable::Column> columns{{"t", "s"}, {"log_t", "s"}};
    for (const auto& field : col::fields) columns.push_back({"nvme0." + std::string(field.name), std::string(field.unit)});
    SampleTable table(columns);
    for (int i = 0; i < 3; ++i) {
        std::vector<double> row{1.8e9 + i, 1.8e9 + i};
        for (const double value : fields(i)) row.push_back(value);
        table.add_row(row);
    }
    return table;
}

const std::map<std::string, std::string> facts{{"model.nvme0", "Example NVMe"}, {"serial.nvme0", "S1234"}};
const RankIdentity leader{.rank = 0, .node = "node0002"};

std::array<double, 7> healthy(int) { return {0, 38, 100, 10, 3, 0, 12}; }

std::vector<Finding> findings_of(const SampleTable& table, const AnalysisSettings& settings = Thresholds::built_in().settings()) {
    return nvme_health_findings(leader, table, facts, settings);
}

TEST(NvmeHealthRule, AHealthyDriveIsNotFlagged) {
    EXPECT_TRUE(findings_of(drive_table(healthy)).empty());
    // Wear just below the band, error log entries (the drive's own log of any error, most benign) many.
    EXPECT_TRUE(findings_of(drive_table([](int) { return std::array<double, 7>{0, 60, 100, 10, 79, 0, 5000}; })).empty());
}

TEST(NvmeHealthRule, ACriticalWarningFailsNamingItsBits) {
    const auto findings = findings_of(drive_table([](int i) {
        auto f = healthy(i);
        if (i == 2) f[0] = 0x05;  // spare below threshold, reliability degraded
        return f;
    }));
    ASSERT_EQ(findings.size(), 1u);
    const Finding& f = findings[0];
    EXPECT_EQ(f.test, "nvme_health");
    EXPECT_EQ(f.node, "node0002");
    EXPECT_EQ(f.level, Level::fail);
    EXPECT_EQ(f.cause, Cause::hardware);
    EXPECT_EQ(f.evidence, Evidence::fault);
    EXPECT_EQ(f.metric, "nvme0.critical_warning");
    EXPECT_EQ(f.unit, "bits");
    EXPECT_EQ(f.reason.rfind("NVMe nvme0 (Example NVMe, serial S1234): critical warning 0x05 in the drive's health log "
                             "(available spare below its threshold; reliability degraded by media or internal errors)", 0),
              0u)
        << f.reason;
    EXPECT_NE(f.reason.find("[rule nvme_critical_warning]"), std::string::npos) << f.reason;
}

TEST(NvmeHealthRule, MediaErrorsFail) {
    const auto findings = findings_of(drive_table([](int i) {
        auto f = healthy(i);
        f[5] = 2;
        return f;
    }));
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].level, Level::fail);
    EXPECT_EQ(findings[0].metric, "nvme0.media_errors");
    EXPECT_EQ(*findings[0].value, 2.0);
    EXPECT_NE(findings[0].reason.find("2 media and data integrity errors in the drive's lifetime count"), std::string::npos);
}

TEST(NvmeHealthRule, WearAtTheSettingWarns) {
    const auto worn = drive_table([](int i) {
        auto f = healthy(i);
        f[4] = 80;
        return f;
    });
    const auto findings = findings_of(worn);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].level, Level::warn);
    EXPECT_EQ(findings[0].metric, "nvme0.percentage_used");
    EXPECT_EQ(findings[0].unit, "%");
    EXPECT_NE(findings[0].reason.find("80 % of its rated endurance used, by the drive's own estimate (warn from 80 %)"),
              std::string::npos)
        << findings[0].reason;
    AnalysisSettings lenient = Thresholds::built_in().settings();
    lenient.nvme_wear_warn_percent = 90.0;
    EXPECT_TRUE(findings_of(worn, lenient).empty());
}

TEST(NvmeHealthRule, ALogThatCouldNotBeReadGivesNothing) {
    EXPECT_TRUE(findings_of(drive_table([](int) {
                    std::array<double, 7> f{};
                    f.fill(std::nan(""));
                    return f;
                })).empty());
}

}  // namespace
}  // namespace shakedown::analysis
