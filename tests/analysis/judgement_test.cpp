// Judgments on hand-made traces held in memory: the rules, the reasons and the verdicts.
#include "analysis/load/run_details.hpp"
#include "analysis/report/report_model.hpp"
#include "analysis/rules/figures/threshold_rule.hpp"
#include "analysis/rules/model/apply_rules.hpp"
#include "analysis_fixtures.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace shakedown::analysis {
namespace {

using testing::healthy_traces;
using testing::judge_run;
using testing::loaded_run;
using testing::metric_named;
using testing::test_named;

const NodeVerdict& node_named(const Judgement& judgement, const std::string& name) {
    for (const NodeVerdict& node : judgement.nodes)
        if (node.node == name) return node;
    throw std::out_of_range("no node " + name);
}

TEST(Judgement, HealthyRunPassesEveryNode) {
    const Judgement judgement = judge_run(loaded_run(healthy_traces(4, 2)), Thresholds::built_in());
    ASSERT_EQ(judgement.nodes.size(), 2u);
    for (const NodeVerdict& node : judgement.nodes) {
        EXPECT_EQ(node.verdict, Verdict::pass) << node.node;
        EXPECT_TRUE(node.findings.empty());
        EXPECT_EQ(node.tests.passed, 4);  // 2 ranks x 2 tests
        EXPECT_EQ(node.ranks, (std::vector<int>{node.node == "node0000" ? 0 : 2, node.node == "node0000" ? 1 : 3}));
    }
    EXPECT_EQ(judgement.overall, Verdict::pass);
    EXPECT_EQ(judgement.exit_code(), 0);
    EXPECT_EQ(judgement.ranks_judged, 4);
}

TEST(Judgement, FailedTestFailsItsNodeWithTheTestsReason) {
    auto traces = healthy_traces(4, 2);
    TestResult& stream = test_named(traces[3], "stream");
    stream.fail("validation: 3 of 1048576 elements differ from the expected triad");
    const Judgement judgement = judge_run(loaded_run(traces), Thresholds::built_in());

    EXPECT_EQ(node_named(judgement, "node0000").verdict, Verdict::pass);
    const NodeVerdict& bad = node_named(judgement, "node0001");
    EXPECT_EQ(bad.verdict, Verdict::fail);
    EXPECT_EQ(bad.tests.failed, 1);
    EXPECT_EQ(bad.tests.passed, 3);
    ASSERT_NE(bad.worst_finding(), nullptr);
    EXPECT_EQ(bad.worst_finding()->rank, 3);
    EXPECT_EQ(bad.worst_finding()->test, "stream");
    EXPECT_EQ(bad.worst_finding()->reason,
              "stream failed: validation: 3 of 1048576 elements differ from the expected triad");
    EXPECT_EQ(judgement.exit_code(), 1);
}

// A library error is the software's: the run cannot be signed (exit 2, to fix), the node is not
// failed and not drained.
TEST(Judgement, ErroredTestIsSoftwareToFixNotANodeFailure) {
    auto traces = healthy_traces(2, 2);
    TestResult& pingpong = test_named(traces[0], "mpi_pingpong");
    pingpong.status = Status::error;
    pingpong.reason = "MPI_Recv: MPI_ERR_TRUNCATE";
    const Judgement judgement = judge_run(loaded_run(traces), Thresholds::built_in());
    EXPECT_EQ(judgement.nodes[0].verdict, Verdict::incomplete);
    EXPECT_EQ(judgement.nodes[0].findings[0].reason, "mpi_pingpong ended with an error: MPI_Recv: MPI_ERR_TRUNCATE");
    EXPECT_EQ(judgement.nodes[0].findings[0].cause, Cause::software);
    EXPECT_EQ(judgement.nodes[0].tests.errored, 1);
    EXPECT_EQ(judgement.nodes[0].tests.failed, 0);
    EXPECT_EQ(judgement.overall, Verdict::error);
    EXPECT_EQ(judgement.exit_code(), 2);
    EXPECT_EQ(judgement.to_fix().size(), 1u);
}

// A value the node could not honour (recorded as configuration) is the operator's to fix.
TEST(Judgement, BadInputOnTheNodeIsConfigurationToFix) {
    auto traces = healthy_traces(2, 2);
    TestResult& stream = test_named(traces[1], "stream");
    stream.status = Status::error;
    stream.reason = "stream: 200000 MiB per array needs 585.9 GiB per rank; this node has 12.0 GiB per rank";
    stream.cause = Cause::configuration;
    const Judgement judgement = judge_run(loaded_run(traces), Thresholds::built_in());
    EXPECT_EQ(judgement.nodes[0].verdict, Verdict::incomplete);
    EXPECT_EQ(judgement.nodes[0].findings[0].cause, Cause::configuration);
    EXPECT_EQ(judgement.exit_code(), 2);
}

// An error the device caused (an uncorrectable ECC error) fails the node like a wrong answer.
TEST(Judgement, HardwareErrorFailsTheNode) {
    auto traces = healthy_traces(2, 2);
    TestResult& stream = test_named(traces[0], "stream");
    stream.status = Status::error;
    stream.reason = "CUDA error 'cudaErrorECCUncorrectable: uncorrectable ECC error encountered' in cudaMemcpy(...)";
    stream.cause = Cause::hardware;
    const Judgement judgement = judge_run(loaded_run(traces), Thresholds::built_in());
    EXPECT_EQ(judgement.nodes[0].verdict, Verdict::fail);
    EXPECT_EQ(judgement.nodes[0].hardware_failures(), 1);
    EXPECT_EQ(judgement.exit_code(), 1);
}

TEST(Judgement, MetricBelowFailFractionOfNominalFailsWithTheNumbers) {
    auto traces = healthy_traces(2, 1);
    metric_named(traces[1], "stream.triad_gbs").value = 4.1;
    const Judgement judgement = judge_run(loaded_run(traces), Thresholds::built_in());

    const NodeVerdict& slow = node_named(judgement, "node0001");
    EXPECT_EQ(slow.verdict, Verdict::fail);
    ASSERT_EQ(slow.findings.size(), 1u);
    const Finding& finding = slow.findings[0];
    EXPECT_EQ(finding.reason, "stream.triad_gbs 4.1 GB/s is 0.52 of nominal 7.9 (fail below 0.60)");
    EXPECT_EQ(finding.metric, "stream.triad_gbs");
    EXPECT_DOUBLE_EQ(*finding.value, 4.1);
    EXPECT_DOUBLE_EQ(*finding.nominal, 7.9);
    EXPECT_EQ(finding.unit, "GB/s");
    EXPECT_EQ(finding.level, Level::fail);
    EXPECT_EQ(slow.tests.failed, 1);
    EXPECT_EQ(node_named(judgement, "node0000").verdict, Verdict::pass);
}

TEST(Judgement, MetricInTheWarnBandWarnsAndStillExitsZero) {
    auto traces = healthy_traces(2, 1);
    metric_named(traces[0], "stream.triad_gbs").value = 5.9;  // 0.75 of 7.9: between 0.6 and 0.8
    const Judgement judgement = judge_run(loaded_run(traces), Thresholds::built_in());
    const NodeVerdict& node = node_named(judgement, "node0000");
    EXPECT_EQ(node.verdict, Verdict::warn);
    ASSERT_EQ(node.findings.size(), 1u);
    EXPECT_EQ(node.findings[0].reason, "stream.triad_gbs 5.9 GB/s is 0.75 of nominal 7.9 (warn below 0.80)");
    EXPECT_EQ(node.tests.warned, 1);
    EXPECT_EQ(judgement.overall, Verdict::warn);
    EXPECT_EQ(judgement.exit_code(), 0);
}

TEST(Judgement, FractionOfNominalForLowerIsBetterIsNominalOverValue) {
    const Thresholds thresholds =
        Thresholds::parse("metrics:\n  p2p.latency_us:\n    fraction_of_nominal: {warn: 0.8, fail: 0.6}\n", "t.yaml");
    const Metric fast{"p2p.latency_us", "us", 1.7, 1.6, Better::lower};
    EXPECT_EQ(judge_metric(fast, thresholds.rule_for(fast.name)).level, Level::pass);
    const Metric slow{"p2p.latency_us", "us", 3.2, 1.6, Better::lower};
    const MetricJudgment judgment = judge_metric(slow, thresholds.rule_for(slow.name));
    EXPECT_EQ(judgment.level, Level::fail);
    EXPECT_EQ(judgment.reason,
              "p2p.latency_us 3.2 us is 0.50 of nominal 1.6 (nominal/value, lower is better; fail below 0.60)");
    const Metric zero{"p2p.latency_us", "us", 0.0, 1.6, Better::lower};
    EXPECT_EQ(judge_metric(zero, thresholds.rule_for(zero.name)).level, Level::fail);
}

TEST(Judgement, AbsoluteBoundsWarnAndFail) {
    const Thresholds thresholds = Thresholds::parse(
        "metrics:\n  x.latency_us: {warn_above: 10, fail_above: 1000}\n  x.rate_gbs: {warn_below: 5, fail_below: 2}\n",
        "t.yaml");
    auto latency = [&](double value) {
        const Metric metric{"x.latency_us", "us", value, std::nullopt, Better::lower};
        return judge_metric(metric, thresholds.rule_for(metric.name));
    };
    auto rate = [&](double value) {
        const Metric metric{"x.rate_gbs", "GB/s", value, std::nullopt, Better::higher};
        return judge_metric(metric, thresholds.rule_for(metric.name));
    };
    EXPECT_EQ(latency(9).level, Level::pass);
    EXPECT_EQ(latency(11).level, Level::warn);
    EXPECT_EQ(latency(1500).level, Level::fail);
    EXPECT_EQ(latency(1500).reason, "x.latency_us 1500 us is above the fail bound 1000 us");
    EXPECT_EQ(rate(6).level, Level::pass);
    EXPECT_EQ(rate(4).level, Level::warn);
    EXPECT_EQ(rate(4).reason, "x.rate_gbs 4 GB/s is below the warn bound 5 GB/s");
    EXPECT_EQ(rate(1).level, Level::fail);
}

TEST(Judgement, PingPongLatencyAboveTheSanityBoundFails) {
    auto traces = healthy_traces(2, 2);
    metric_named(traces[1], "mpi_pingpong.latency_us").value = 1500;
    const Judgement judgement = judge_run(loaded_run(traces), Thresholds::built_in());
    ASSERT_EQ(judgement.nodes[0].findings.size(), 1u);
    EXPECT_EQ(judgement.nodes[0].findings[0].reason, "mpi_pingpong.latency_us 1500 us is above the fail bound 1000 us");
}

TEST(Judgement, NonFiniteValueFailsEvenWithoutARule) {
    const Metric metric{"unjudged.rate_gbs", "GB/s", std::nan(""), std::nullopt, Better::higher};
    const MetricJudgment judgment = judge_metric(metric, nullptr);
    EXPECT_EQ(judgment.level, Level::fail);
    EXPECT_EQ(judgment.reason, "unjudged.rate_gbs is nan: the measurement produced no number");
}

TEST(Judgement, MetricWithoutNominalIsNotJudgedByFraction) {
    const Metric metric{"stream.triad_gbs", "GB/s", 0.1, std::nullopt, Better::higher};
    EXPECT_EQ(judge_metric(metric, Thresholds::built_in().rule_for(metric.name)).level, Level::pass);
}

TEST(Judgement, WaivedTestIsNotedNotFailed) {
    auto traces = healthy_traces(2, 2);
    test_named(traces[0], "stream").waive("no CUDA device");
    test_named(traces[1], "stream").waive("no CUDA device");
    const Judgement judgement = judge_run(loaded_run(traces), Thresholds::built_in());
    EXPECT_EQ(judgement.nodes[0].verdict, Verdict::pass);
    EXPECT_EQ(judgement.nodes[0].tests.waived, 2);
    ASSERT_EQ(judgement.nodes[0].waived.size(), 2u);
    EXPECT_EQ(judgement.nodes[0].waived[0].reason, "no CUDA device");
    EXPECT_EQ(judgement.exit_code(), 0);
}

// The driver's fault, not the node's: to fix, never a pass.
// Not run is not a pass: a node whose every test waived itself is not judged; a run where
// nothing ran at all is an error (exit 2). A healthy node beside it still passes.
TEST(Judgement, NodeWhereNothingRanIsNotAPass) {
    auto traces = healthy_traces(4, 2);
    for (int rank : {2, 3})
        for (TestResult& test : traces[rank].tests) test.waive("no CUDA device");
    const Judgement judgement = judge_run(loaded_run(traces), Thresholds::built_in());
    EXPECT_EQ(node_named(judgement, "node0000").verdict, Verdict::pass);
    const NodeVerdict& idle = node_named(judgement, "node0001");
    EXPECT_EQ(idle.verdict, Verdict::incomplete);
    ASSERT_EQ(idle.incomplete.size(), 1u);
    EXPECT_EQ(idle.incomplete[0], "node0001: nothing ran (every test of its 2 rank(s) waived itself)");
    EXPECT_EQ(judgement.exit_code(), 3);
    EXPECT_TRUE(judgement.errors.empty());
}

TEST(Judgement, RunWhereNothingRanIsAnError) {
    auto traces = healthy_traces(2, 2);
    for (Trace& trace : traces)
        for (TestResult& test : trace.tests) test.waive("no CUDA device");
    const Judgement judgement = judge_run(loaded_run(traces), Thresholds::built_in());
    EXPECT_EQ(judgement.overall, Verdict::error);
    EXPECT_EQ(judgement.exit_code(), 2);
    EXPECT_EQ(judgement.errors, std::vector<std::string>{"nothing ran: all 4 test result(s) are waivers"});
}

TEST(ReportModel, APassingNodeRowNamesWhatDidNotRun) {
    auto traces = healthy_traces(2, 2);
    test_named(traces[0], "stream").waive("no CUDA device");
    test_named(traces[1], "stream").waive("no CUDA device");
    const LoadedRun run = loaded_run(traces);
    const Observations observations(run);
    RunDetails details(run);
    const AnalysisResult result = apply_rules(observations, Thresholds::built_in(), nullptr, nullptr, details);
    const ReportModel model = make_report_model(observations, result, Thresholds::built_in().settings());
    ASSERT_EQ(model.nodes.size(), 1u);
    EXPECT_EQ(model.nodes[0].verdict->verdict, Verdict::pass);
    EXPECT_EQ(model.nodes[0].worst, "not run: stream (no CUDA device)");
}

TEST(Judgement, FinishedRankWithoutAListedTestIsSoftwareToFix) {
    auto traces = healthy_traces(2, 2);
    traces[1].tests.pop_back();  // mpi_pingpong never recorded
    const Judgement judgement = judge_run(loaded_run(traces), Thresholds::built_in());
    EXPECT_EQ(judgement.nodes[0].verdict, Verdict::incomplete);
    EXPECT_EQ(judgement.overall, Verdict::error);
    EXPECT_EQ(judgement.nodes[0].findings[0].cause, Cause::software);
    EXPECT_EQ(judgement.nodes[0].findings[0].reason, "mpi_pingpong: no result recorded although the run listed it");
}

TEST(Judgement, IncompleteRankMakesItsNodeIncompleteAndWinsTheExitCode) {
    auto traces = healthy_traces(4, 2);
    metric_named(traces[0], "stream.triad_gbs").value = 1.0;  // node0000 fails
    LoadedRun run = loaded_run(traces);
    run.ranks[3].trace.reset();
    run.ranks[3].problem = RankProblem::missing;
    run.ranks[3].problem_text = "rank 3 (node0001): trace missing (rank-00003.h5)";
    const Judgement judgement = judge_run(run, Thresholds::built_in());
    EXPECT_EQ(node_named(judgement, "node0000").verdict, Verdict::fail);
    EXPECT_EQ(node_named(judgement, "node0001").verdict, Verdict::incomplete);
    EXPECT_EQ(judgement.incomplete, std::vector<std::string>{"rank 3 (node0001): trace missing (rank-00003.h5)"});
    EXPECT_EQ(judgement.ranks_judged, 3);
    EXPECT_EQ(judgement.ranks_incomplete, 1);
    EXPECT_EQ(judgement.exit_code(), 3);
}

TEST(Judgement, AbortedRankKeepsItsFinishedTestsJudged) {
    auto traces = healthy_traces(2, 2);
    metric_named(traces[1], "stream.triad_gbs").value = 1.0;
    traces[1].tests.pop_back();  // died in mpi_pingpong: no "missing test" finding for unfinished ranks
    traces[1].status = TraceStatus::aborted;
    LoadedRun run = loaded_run(traces);
    run.ranks[1].problem = RankProblem::aborted;
    run.ranks[1].problem_text = "rank 1 (node0000): aborted: watchdog: mpi_pingpong passed its deadline";
    const Judgement judgement = judge_run(run, Thresholds::built_in());
    ASSERT_EQ(judgement.nodes[0].findings.size(), 1u);
    EXPECT_EQ(judgement.nodes[0].findings[0].metric, "stream.triad_gbs");
    EXPECT_EQ(judgement.nodes[0].verdict, Verdict::fail);
    EXPECT_EQ(judgement.exit_code(), 3);
}

TEST(Judgement, RunLevelProblemMakesTheRunIncomplete) {
    LoadedRun run = loaded_run(healthy_traces(2, 2));
    run.run_problems.push_back("run.json: status is running: the driver did not record a finished run");
    const Judgement judgement = judge_run(run, Thresholds::built_in());
    EXPECT_EQ(judgement.nodes[0].verdict, Verdict::pass);
    EXPECT_EQ(judgement.overall, Verdict::incomplete);
    EXPECT_EQ(judgement.exit_code(), 3);
}

TEST(Formatting, NumbersAndRankLists) {
    EXPECT_EQ(format_number(4.1), "4.1");
    EXPECT_EQ(format_number(0.5234), "0.523");
    EXPECT_EQ(format_number(4366.4), "4366");
    EXPECT_EQ(format_number(12.345), "12.3");
    EXPECT_EQ(compact_rank_list({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
    EXPECT_EQ(compact_rank_list({5}), "5");
    EXPECT_EQ(compact_rank_list({}), "");
}

}  // namespace
}  // namespace shakedown::analysis
