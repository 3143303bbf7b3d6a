// Reason codes: one declared list (analysis/rules/model/reason_code.hpp), its strings unique and
// round-tripping, and the published summary.json schema naming exactly the same codes.
#include "analysis/rules/model/finding.hpp"
#include "analysis/rules/model/reason_code.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <string>

namespace shakedown::analysis {
namespace {

TEST(ReasonCode, StringsAreUniqueAndRoundTrip) {
    std::set<std::string> seen;
    for (ReasonCode code : all_reason_codes()) {
        const std::string text(to_string(code));
        EXPECT_TRUE(seen.insert(text).second) << text << " twice";
        EXPECT_EQ(reason_code_from_string(text), code) << text;
    }
    EXPECT_EQ(seen.size(), all_reason_codes().size());
    EXPECT_FALSE(reason_code_from_string("below_nominal").has_value());
}

// A rule that sets no code of its own still gets its source's: only the threshold checks, which
// each set a finer one, have none.
TEST(ReasonCode, EverySourceButThresholdStandsForACode) {
    for (FindingSource source : {FindingSource::fleet, FindingSource::baseline, FindingSource::links,
                                 FindingSource::collective, FindingSource::port_counters, FindingSource::credibility,
                                 FindingSource::stall, FindingSource::scheduler, FindingSource::hidden_faults,
                                 FindingSource::pkeys})
        EXPECT_NE(reason_code_of(source), ReasonCode::unclassified) << to_string(source);
    EXPECT_EQ(reason_code_of(FindingSource::pkeys), ReasonCode::pkey_mismatch);
    EXPECT_EQ(reason_code_of(FindingSource::threshold), ReasonCode::unclassified);
    const RankIdentity who{.rank = 2, .node = "node0001"};
    EXPECT_EQ(make_finding(who, "slurm", Level::fail, "down", FindingSource::scheduler).code, ReasonCode::node_down);
}

TEST(ReasonCode, TheSummarySchemaListsExactlyTheDeclaredCodes) {
    std::ifstream file(std::string(SHAKEDOWN_SOURCE_DIR) + "/analysis/schemas/summary.schema.json");
    ASSERT_TRUE(file.good());
    const auto schema = nlohmann::json::parse(file);
    std::set<std::string> in_schema;
    for (const auto& code : schema.at("$defs").at("reason_code").at("enum")) in_schema.insert(code.get<std::string>());
    std::set<std::string> declared;
    for (ReasonCode code : all_reason_codes()) declared.insert(std::string(to_string(code)));
    EXPECT_EQ(in_schema, declared);
}

}  // namespace
}  // namespace shakedown::analysis
