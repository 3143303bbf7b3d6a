// tcp_bandwidth's figures against their interface's line rate (analysis/thresholds/default.yaml:
// below 0.7 of it WARN, below 0.3 FAIL) and its bound (send_gbits_max above the line rate cannot
// be true: credibility, software to fix). A healthy node at 0.9 of a 25 Gbit/s line is not flagged
// beside a node at 0.2 (FAIL) and one at 0.5 (WARN); a fastest peer at 1.2 x the line rate is not
// credible, one at 0.96 x is not flagged.
#include "analysis/load/observations.hpp"
#include "analysis/rules/figures/credibility_rule.hpp"
#include "analysis/rules/settings/thresholds.hpp"
#include "analysis_fixtures.hpp"
#include "health/network/tcp_bandwidth_names.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace shakedown::analysis {
namespace {

namespace names = health::tcp_bandwidth_names;
constexpr double line_gbits = 25.0;

// One rank per node, each with tcp_bandwidth's figures at `fraction[node]` of a 25 Gbit/s line and
// its fastest peer at `fastest[node]` of it.
std::vector<Trace> tcp_run(const std::vector<double>& fraction, const std::vector<double>& fastest) {
    auto traces = testing::healthy_traces(static_cast<int>(fraction.size()), 1);
    for (std::size_t node = 0; node < traces.size(); ++node) {
        TestResult tcp;
        tcp.key = std::string(names::key);
        tcp.status = Status::pass;
        auto figure = [&](std::string_view name, double value) {
            tcp.metrics.push_back(testing::declared_metric(names::key, name, value, line_gbits));
        };
        const double rate = fraction[node] * line_gbits;
        for (const auto name : {names::send_gbits_min, names::send_gbits_median, names::receive_gbits_min,
                                names::receive_gbits_median, names::duplex_gbits_min})
            figure(name, rate);
        figure(names::send_gbits_max, fastest[node] * line_gbits);
        traces[node].tests = {tcp};
    }
    return traces;
}

std::vector<const Finding*> tcp_findings(const Judgement& judgement, const std::string& node) {
    std::vector<const Finding*> found;
    for (const NodeVerdict& verdict : judgement.nodes)
        if (verdict.node == node)
            for (const Finding& finding : verdict.findings)
                if (finding.test == names::key) found.push_back(&finding);
    return found;
}

TEST(TcpThresholds, ANodeFarBelowItsLineRateFailsAndAHealthyOneIsNotFlagged) {
    const LoadedRun run = testing::loaded_run(tcp_run({0.9, 0.92, 0.2, 0.5}, {0.95, 0.95, 0.3, 0.6}));
    const Judgement judgement = testing::judge_run(run, Thresholds::built_in());
    EXPECT_TRUE(tcp_findings(judgement, "node0000").empty());
    EXPECT_TRUE(tcp_findings(judgement, "node0001").empty());

    const auto slow = tcp_findings(judgement, "node0002");
    ASSERT_FALSE(slow.empty());
    const bool send_median_fails = std::any_of(slow.begin(), slow.end(), [](const Finding* f) {
        return f->metric == names::send_gbits_median && f->level == Level::fail;
    });
    EXPECT_TRUE(send_median_fails);
    for (const Finding* finding : slow)
        EXPECT_NE(finding->reason.find("of nominal 25"), std::string::npos) << finding->reason;

    const auto mild = tcp_findings(judgement, "node0003");
    ASSERT_FALSE(mild.empty());
    for (const Finding* finding : mild) EXPECT_EQ(finding->level, Level::warn) << finding->reason;
}

TEST(TcpThresholds, AFastestPeerAboveTheLineRateIsNotCredibleAndJustBelowIsNot) {
    const LoadedRun run = testing::loaded_run(tcp_run({0.9, 0.9, 0.9}, {0.96, 1.2, 0.9}));
    const auto findings = credibility_findings(Observations(run));
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].node, "node0001");
    EXPECT_EQ(findings[0].metric, names::send_gbits_max);
    EXPECT_EQ(findings[0].level, Level::fail);
    EXPECT_EQ(findings[0].cause, Cause::software);
    EXPECT_NE(findings[0].reason.find("measurement not credible: tcp_bandwidth.send_gbits_max 30 is above its physical "
                                      "bound 25"),
              std::string::npos)
        << findings[0].reason;
}

}  // namespace
}  // namespace shakedown::analysis
