// Confirm before drain: a FAIL resting on a figure drains only when a confirmation run
// measured it FAIL again; one the confirmation measured within its band is a WARN "not
// reproduced"; one it did not measure still awaits (FAIL, not drained); a wrong answer drains at
// once. Run folders written with the real trace writer, analysed through shakedown-analyze's code.
#include "analysis/analyzer.hpp"
#include "analysis/rules/model/confirmation.hpp"
#include "analysis_outcome.hpp"
#include "bench/synthetic_run.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace shakedown::analysis {
namespace {

using testing::read_text;
using testing::TempDir;

using Analysis = testing::AnalysisOutcome;
using testing::analyze_in_process;
using testing::findings_of;
using testing::synthetic_run;
using testing::verdict_of;

bench::SyntheticRunSpec allpairs_nodes(int nodes) {
    return {.ranks = nodes, .ranks_per_node = 1, .gpus = false, .tests = {"allpairs"}};
}

bool drains(const Analysis& analysis, const std::string& node) {
    return analysis.drain.find("NodeName=" + node + " ") != std::string::npos;
}

TEST(Confirmation, AFigureFailMeasuredOnceAwaitsAndDrainsNothing) {
    TempDir temp;
    auto spec = allpairs_nodes(4);
    spec.slow_node = 2;
    const auto run = synthetic_run(temp, "run", spec);
    const Analysis analysis = analyze_in_process({.run_dir = run, .print_confirmation_plan = true});
    EXPECT_EQ(analysis.exit_code, 1) << analysis.out;  // the run fails: the node did measure slow
    EXPECT_EQ(verdict_of(analysis, "node0002"), "fail");
    EXPECT_FALSE(drains(analysis, "node0002")) << analysis.drain;
    const auto findings = findings_of(analysis, "node0002");
    ASSERT_FALSE(findings.empty());
    EXPECT_EQ(findings[0]["evidence"], "figure");
    EXPECT_EQ(findings[0]["confirmation"], "awaiting");
    // What to measure again: allpairs on the slow node and the far ends of its slow links.
    EXPECT_NE(analysis.out.find("confirm-tests: allpairs\nconfirm-nodes: node0000,node0001,node0002,node0003\n"),
              std::string::npos) << analysis.out;
    EXPECT_NE(analysis.out.find("then judge both: shakedown-analyze " + run.string() + " --confirmation "),
              std::string::npos) << analysis.out;
}

TEST(Confirmation, MeasuredAgainSlowItDrains) {
    TempDir temp;
    auto spec = allpairs_nodes(4);
    spec.slow_node = 2;
    const auto run = synthetic_run(temp, "run", spec);
    spec.seed = 7;  // another measurement: other noise, the same slow node
    const Analysis analysis = analyze_in_process({.run_dir = run, .confirmation_dir = synthetic_run(temp, "again", spec)});
    EXPECT_EQ(analysis.exit_code, 1) << analysis.out << analysis.err;
    EXPECT_TRUE(drains(analysis, "node0002")) << analysis.drain;
    EXPECT_EQ(analysis.drain.find("node0000"), std::string::npos) << analysis.drain;
    const auto findings = findings_of(analysis, "node0002");
    ASSERT_FALSE(findings.empty());
    EXPECT_EQ(findings[0]["confirmation"], "confirmed");
    EXPECT_NE(findings[0]["reason"].get<std::string>().find("; confirmed: run synthetic measured its link(s) to node0000, "
                                                            "node0003, node0001 again at 0.3"),
              std::string::npos) << findings[0]["reason"];
    EXPECT_NE(analysis.out.find("1 FAIL(s) measured again and confirmed (they drain), 0 not reproduced"),
              std::string::npos) << analysis.out;
}

TEST(Confirmation, MeasuredAgainHealthyItIsAWarnNotReproduced) {
    TempDir temp;
    auto spec = allpairs_nodes(4);
    spec.slow_node = 2;
    const auto run = synthetic_run(temp, "run", spec);
    const Analysis analysis = analyze_in_process({.run_dir = run, .confirmation_dir = synthetic_run(temp, "again", allpairs_nodes(4))});
    EXPECT_EQ(analysis.exit_code, 0) << analysis.out << analysis.err;  // WARN only
    EXPECT_EQ(verdict_of(analysis, "node0002"), "warn");
    EXPECT_FALSE(drains(analysis, "node0002")) << analysis.drain;
    const auto findings = findings_of(analysis, "node0002");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0]["level"], "warn");
    EXPECT_EQ(findings[0]["confirmation"], "not_reproduced");
    EXPECT_EQ(findings[0]["reason"].get<std::string>().rfind("not reproduced: run synthetic measured its link(s) to node0000, "
                                                              "node0003, node0001 again at 1.0",
                                                              0),
              0u) << findings[0]["reason"];
    EXPECT_NE(findings[0]["reason"].get<std::string>().find("of their references (fail below 0.70); the first run's FAIL "
                                                            "was: slow node: all 3 of node0002's"),
              std::string::npos) << findings[0]["reason"];
}

TEST(Confirmation, OnlyTheLinksNodesMeasuredAgainAreJudgedAgainstTheFirstRunsFleet) {
    // The confirmation ran allpairs on the slow link's two nodes only: its one link is judged
    // against the first run's other links, which it does not have itself.
    TempDir temp;
    auto spec = allpairs_nodes(5);
    spec.slow_links = {{0, 1}};
    const auto run = synthetic_run(temp, "run", spec);
    const Analysis first = analyze_in_process({.run_dir = run, .print_confirmation_plan = true});
    EXPECT_NE(first.out.find("confirm-nodes: node0000,node0001\n"), std::string::npos) << first.out;
    auto pair = allpairs_nodes(2);
    pair.slow_links = {{0, 1}};
    const Analysis slow = analyze_in_process({.run_dir = run, .confirmation_dir = synthetic_run(temp, "slow-again", pair)});
    EXPECT_EQ(slow.exit_code, 1) << slow.out << slow.err;
    ASSERT_FALSE(findings_of(slow, "node0000").empty()) << slow.out;
    EXPECT_EQ(findings_of(slow, "node0000")[0]["confirmation"], "confirmed");
    EXPECT_EQ(findings_of(slow, "node0000")[0]["peers"], nlohmann::json::array({"node0001"}));
    EXPECT_TRUE(slow.drain.find("NodeName=") == std::string::npos) << slow.drain;  // a link drains neither end

    const Analysis healthy = analyze_in_process({.run_dir = run, .confirmation_dir = synthetic_run(temp, "healthy-again", allpairs_nodes(2))});
    EXPECT_EQ(healthy.exit_code, 0) << healthy.out << healthy.err;
    EXPECT_EQ(findings_of(healthy, "node0001")[0]["confirmation"], "not_reproduced");
}

// A link the first run judged by its slow direction (node0000 -> node0001 at 0.4, the reverse
// healthy) is measured again by that direction: both directions together would read 0.7, at the
// FAIL band's edge, and could call a fault that is still there "not reproduced".
TEST(Confirmation, AOneDirectionLinkIsConfirmedByThatDirection) {
    TempDir temp;
    auto spec = allpairs_nodes(5);
    spec.slow_directions = {{0, 1}};
    spec.slow_link_factor = 0.4;
    const auto run = synthetic_run(temp, "run", spec);
    auto pair = allpairs_nodes(2);
    pair.slow_directions = {{0, 1}};
    pair.slow_link_factor = 0.4;
    const Analysis slow = analyze_in_process({.run_dir = run, .confirmation_dir = synthetic_run(temp, "slow-again", pair)});
    EXPECT_EQ(slow.exit_code, 1) << slow.out << slow.err;
    const auto findings = findings_of(slow, "node0000");
    ASSERT_FALSE(findings.empty()) << slow.out;
    EXPECT_EQ(findings[0]["confirmation"], "confirmed") << findings[0]["reason"];
    const std::string reason = findings[0]["reason"].get<std::string>();
    EXPECT_NE(reason.find("slow link node0000->node0001 (one direction"), std::string::npos) << reason;
    EXPECT_NE(reason.find("confirmed: run synthetic measured its link(s) to node0001 again at 0.40"), std::string::npos) << reason;

    const Analysis healthy =
        analyze_in_process({.run_dir = run, .confirmation_dir = synthetic_run(temp, "healthy-again", allpairs_nodes(2))});
    EXPECT_EQ(healthy.exit_code, 0) << healthy.out << healthy.err;
    EXPECT_EQ(findings_of(healthy, "node0000")[0]["confirmation"], "not_reproduced");
}

TEST(Confirmation, AFailTheConfirmationDidNotMeasureStillAwaits) {
    TempDir temp;
    auto traces = testing::healthy_traces(3, 1);
    testing::metric_named(traces[1], "stream.triad_gbs").value = 2.0;  // 0.25 of nominal
    const auto run = testing::write_run(temp.path() / "run", traces);
    // The confirmation measured node0000 only.
    const auto again = testing::write_run(temp.path() / "again", {testing::healthy_trace(0, 1, "node0000")});
    const Analysis analysis = analyze_in_process({.run_dir = run, .confirmation_dir = again});
    EXPECT_EQ(analysis.exit_code, 1) << analysis.out << analysis.err;
    EXPECT_EQ(verdict_of(analysis, "node0001"), "fail");
    EXPECT_FALSE(drains(analysis, "node0001")) << analysis.drain;
    EXPECT_EQ(findings_of(analysis, "node0001")[0]["confirmation"], "awaiting");
    EXPECT_NE(analysis.out.find("0 FAIL(s) measured again and confirmed (they drain), 0 not reproduced (WARN), 1 not "
                                "measured again"),
              std::string::npos) << analysis.out;
}

// A figure several nodes' results make (the congestion rings, rank 0's) is judged again from the
// confirmation's rings alone: where the confirmation left the named node out, the rules over it
// no longer find its FAIL, which must stay (awaiting, not drained) rather than vanish.
TEST(Confirmation, AFailTheRulesOverTheConfirmationNoLongerFindStaysAFailWhenItsNodeWasNotMeasured) {
    Finding fail;
    fail.node = "node2";
    fail.rank = 2;
    fail.test = "congestion";
    fail.metric = "congestion.ring_links_impact";
    fail.level = Level::fail;
    fail.cause = Cause::hardware;
    fail.evidence = Evidence::figure;
    fail.peers = {"node1", "node3"};
    ASSERT_TRUE(fail.needs_confirmation());
    Remeasured measured;
    measured.run_id = "again";
    for (const char* node : {"node1", "node3", "node4"}) measured.tests_by_node[node] = {"congestion"};
    const auto confirmed = confirm_findings({fail}, {}, measured, {});
    ASSERT_EQ(confirmed.size(), 1u);
    EXPECT_EQ(confirmed[0].node, "node2");
    EXPECT_EQ(confirmed[0].level, Level::fail);
    EXPECT_EQ(confirmed[0].confirmation, Confirmation::awaiting);
    EXPECT_FALSE(confirmed[0].drains());
    // Measured again (node and peers) and no longer found: not reproduced, a WARN.
    measured.tests_by_node["node2"] = {"congestion"};
    const auto again = confirm_findings({fail}, {}, measured, {});
    ASSERT_EQ(again.size(), 1u);
    EXPECT_EQ(again[0].level, Level::warn);
    EXPECT_EQ(again[0].confirmation, Confirmation::not_reproduced);
}

TEST(Confirmation, ASlowFigureMeasuredAgainHealthyIsNotReproduced) {
    TempDir temp;
    auto traces = testing::healthy_traces(3, 1);
    testing::metric_named(traces[1], "stream.triad_gbs").value = 2.0;  // 0.25 of nominal
    const auto run = testing::write_run(temp.path() / "run", traces);
    const auto again = testing::write_run(temp.path() / "again", {testing::healthy_trace(0, 1, "node0001")});
    const Analysis analysis = analyze_in_process({.run_dir = run, .confirmation_dir = again});
    EXPECT_EQ(analysis.exit_code, 0) << analysis.out << analysis.err;
    EXPECT_EQ(verdict_of(analysis, "node0001"), "warn");
    EXPECT_FALSE(drains(analysis, "node0001")) << analysis.drain;
    const auto findings = findings_of(analysis, "node0001");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0]["confirmation"], "not_reproduced");
    EXPECT_EQ(findings[0]["reason"].get<std::string>().rfind(
                  std::string("not reproduced: run ") + testing::test_run_id +
                      " measured it again: within its band; the first run's FAIL was: stream.triad_gbs 2 GB/s", 0),
              0u) << findings[0]["reason"];
}

TEST(Confirmation, AWrongAnswerDrainsWithoutAConfirmationRun) {
    TempDir temp;
    auto traces = testing::healthy_traces(2, 1);
    TestResult& stream = testing::test_named(traces[1], "stream");
    stream.status = Status::fail;
    stream.reason = "triad: a[3] = 1.5, expected 2.0 (validation)";
    const Analysis analysis = analyze_in_process({.run_dir = testing::write_run(temp.path() / "run", traces)});
    EXPECT_EQ(analysis.exit_code, 1) << analysis.out;
    EXPECT_TRUE(drains(analysis, "node0001")) << analysis.drain;
    EXPECT_EQ(findings_of(analysis, "node0001")[0]["evidence"], "fault");
    EXPECT_EQ(findings_of(analysis, "node0001")[0]["confirmation"], "not_needed");
}

TEST(Confirmation, AHealthyRunHasNothingToConfirm) {
    TempDir temp;
    const Analysis analysis = analyze_in_process(
        {.run_dir = synthetic_run(temp, "run", allpairs_nodes(4)), .print_confirmation_plan = true});
    EXPECT_EQ(analysis.exit_code, 0) << analysis.out;
    EXPECT_NE(analysis.out.find("confirm-tests: \nconfirm-nodes: \n"), std::string::npos) << analysis.out;
    EXPECT_EQ(analysis.out.find("Confirm before drain"), std::string::npos) << analysis.out;
}

TEST(Confirmation, AConfirmationOnOtherNodesIsBadInput) {
    TempDir temp;
    const auto run = testing::write_run(temp.path() / "run", testing::healthy_traces(2, 1));
    const auto again = testing::write_run(temp.path() / "again", {testing::healthy_trace(0, 1, "elsewhere")});
    const Analysis analysis = analyze_in_process({.run_dir = run, .confirmation_dir = again});
    EXPECT_EQ(analysis.exit_code, 2);
    EXPECT_NE(analysis.err.find("--confirmation " + again.string() + ": rank 0 ran on node 'elsewhere' local rank 0, which "),
              std::string::npos) << analysis.err;
    EXPECT_EQ(std::count(analysis.err.begin(), analysis.err.end(), '\n'), 1);
}

}  // namespace
}  // namespace shakedown::analysis
