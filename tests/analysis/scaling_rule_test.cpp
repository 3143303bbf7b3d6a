// The scaling rule over run folders written with the real TraceWriter: 4 nodes of 2 ranks that
// ran train_step (and stencil3d, whose declaration the same rule reads). Healthy figures flag nothing; a rank slow alone is named and no one else; a
// node's slow link is named with the nodes to measure it again beside; an efficiency below its
// prediction with nothing slow is one WARN; an efficiency the prediction also gives is the
// machine as built, not a finding.
#include "analysis/load/observations.hpp"
#include "analysis/load/run_loader.hpp"
#include "analysis/rules/figures/scaling_rule.hpp"
#include "analysis/rules/settings/thresholds.hpp"
#include "analysis_fixtures.hpp"
#include "kernels/cg/cg_fp64_names.hpp"
#include "kernels/stencil/stencil3d_names.hpp"
#include "kernels/train/train_step_names.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <optional>

namespace shakedown::analysis {
namespace {

namespace names = kernels::train_names;
using testing::TempDir;

struct Figures {
    std::function<double(int rank)> alone = [](int rank) { return 1.0 + 0.02 * (rank % 3); };
    std::function<double(int node)> link = [](int node) { return 10.0 + 0.3 * node; };
    double job_efficiency = 0.90;
    double predicted_job = 0.93;
    std::function<double(int node)> node_efficiency = [](int) { return 0.95; };
    double predicted_node = 0.97;
    std::optional<double> noise;  // train_step.step_noise on every rank
};

Metric metric(std::string_view name, double value) { return testing::declared_metric(names::key, name, value); }

std::vector<Finding> findings_of(const Figures& figures, int nodes = 4) {
    constexpr int per_node = 2;
    auto traces = testing::healthy_traces(nodes * per_node, per_node);
    for (Trace& trace : traces) {
        const int rank = trace.header.rank, node = rank / per_node;
        TestResult test;
        test.key = std::string(names::key);
        test.status = Status::pass;
        test.metrics = {metric(names::alone_step_s, figures.alone(rank)),
                        metric(names::node_efficiency, figures.node_efficiency(node)),
                        metric(names::predicted_node_efficiency, figures.predicted_node),
                        metric(names::node_busbw_gbs, 100.0),
                        metric(names::job_efficiency, figures.job_efficiency),
                        metric(names::predicted_job_efficiency, figures.predicted_job),
                        metric(names::job_busbw_gbs, 9.0)};
        if (rank % per_node == 0) test.metrics.push_back(metric(names::node_link_gbs, figures.link(node)));
        if (figures.noise) test.metrics.push_back(metric(names::step_noise, *figures.noise));
        trace.tests.push_back(std::move(test));
    }
    TempDir temp;
    const auto dir = testing::write_run(temp.path() / "run", traces, "complete", {std::string(names::key)});
    const LoadedRun run = load_run(dir, {});
    const Observations observations(run);
    return scaling_findings(observations, Thresholds::built_in().settings());
}

TEST(ScalingRule, HealthyScalingIsNotFlagged) {
    EXPECT_TRUE(findings_of(Figures{}).empty());
}

TEST(ScalingRule, ARankSlowAloneIsNamedAndNoOneElse) {
    Figures figures;
    figures.alone = [](int rank) { return rank == 5 ? 2.0 : 1.0; };
    figures.job_efficiency = 0.5;
    const auto findings = findings_of(figures);
    ASSERT_EQ(findings.size(), 1u);
    const Finding& slow = findings.front();
    EXPECT_EQ(slow.rank, 5);
    EXPECT_EQ(slow.node, "node0002");
    EXPECT_EQ(slow.level, Level::fail);
    EXPECT_EQ(slow.code, ReasonCode::slow_alone);
    EXPECT_EQ(slow.evidence, Evidence::figure);  // measured again before it drains
    EXPECT_EQ(slow.metric, names::alone_step_s);
    EXPECT_NE(slow.reason.find("2x the median rank's time"), std::string::npos) << slow.reason;
    EXPECT_NE(slow.reason.find("0.5 of the median rank's step alone, 0.93 predicted"), std::string::npos) << slow.reason;

    figures.alone = [](int rank) { return rank == 3 ? 1.3 : 1.0; };
    const auto warned = findings_of(figures);
    ASSERT_EQ(warned.size(), 1u);
    EXPECT_EQ(warned.front().level, Level::warn);
    EXPECT_EQ(warned.front().rank, 3);
}

TEST(ScalingRule, ANodesSlowLinkIsNamedWithPeersToMeasureItAgain) {
    Figures figures;
    figures.link = [](int node) { return node == 2 ? 0.9 : 10.0; };
    figures.job_efficiency = 0.3;
    figures.predicted_job = 0.32;  // the bus bandwidth it predicts from is the slow ring's
    const auto findings = findings_of(figures);
    ASSERT_EQ(findings.size(), 1u);
    const Finding& link = findings.front();
    EXPECT_EQ(link.node, "node0002");
    EXPECT_EQ(link.rank, 4);
    EXPECT_EQ(link.level, Level::fail);
    EXPECT_EQ(link.code, ReasonCode::slow_node_links);
    EXPECT_EQ(link.peers.size(), 3u);
    EXPECT_NE(link.reason.find("0.09 of the fabric median"), std::string::npos) << link.reason;

    figures.link = [](int node) { return node == 1 ? 6.0 : 10.0; };
    const auto warned = findings_of(figures);
    ASSERT_EQ(warned.size(), 1u);
    EXPECT_EQ(warned.front().level, Level::warn);
    EXPECT_EQ(warned.front().node, "node0001");
}

TEST(ScalingRule, BandsWidenToTheStepTimesScatter) {
    // Ranks sharing cores: step times scatter by 30 %. A rank 1.4x slow alone and a job at 0.7 of
    // its prediction are within twice that; a rank 2x slow is not.
    Figures figures;
    figures.noise = 0.3;
    figures.alone = [](int rank) { return rank == 5 ? 1.4 : 1.0; };
    figures.job_efficiency = 0.65;
    EXPECT_TRUE(findings_of(figures).empty());
    figures.alone = [](int rank) { return rank == 5 ? 2.0 : 1.0; };
    const auto findings = findings_of(figures);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings.front().rank, 5);
    EXPECT_EQ(findings.front().level, Level::fail);  // the widened warn band (1.6) is above the fail ratio (1.5)
    EXPECT_NE(findings.front().reason.find("warn from 1.6x, fail from 1.6x"), std::string::npos) << findings.front().reason;
}

TEST(ScalingRule, TwoNodesCannotTellWhichEndOfTheirLinkIsSlow) {
    Figures figures;
    figures.link = [](int node) { return node == 1 ? 0.5 : 10.0; };
    EXPECT_TRUE(findings_of(figures, 2).empty());
}

TEST(ScalingRule, AShortfallNothingExplainsIsOneWarn) {
    Figures figures;
    figures.job_efficiency = 0.6;
    const auto findings = findings_of(figures);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings.front().level, Level::warn);
    EXPECT_EQ(findings.front().code, ReasonCode::scaling_shortfall);
    EXPECT_EQ(findings.front().rank, 0);
    EXPECT_NE(findings.front().reason.find("overlap the backward less than scheduled"), std::string::npos);
}

TEST(ScalingRule, AnEfficiencyThePredictionAlsoGivesIsTheMachineAsBuilt) {
    Figures figures;
    figures.job_efficiency = 0.60;
    figures.predicted_job = 0.62;  // e.g. GPUs on PCIe: the all-reduce is long, and it is what was measured
    figures.node_efficiency = [](int) { return 0.55; };
    figures.predicted_node = 0.58;
    EXPECT_TRUE(findings_of(figures).empty());
}

TEST(ScalingRule, ANodeBelowItsOwnPredictionIsNamed) {
    Figures figures;
    figures.node_efficiency = [](int node) { return node == 1 ? 0.5 : 0.95; };
    const auto findings = findings_of(figures);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings.front().node, "node0001");
    EXPECT_EQ(findings.front().level, Level::warn);
    EXPECT_EQ(findings.front().metric, names::node_efficiency);
}

// A halo-exchanging test's weak scaling (stencil3d, cg_fp64), judged by its own declaration (no
// node phase, no node link).
std::vector<Finding> declared_findings_of(const ScalingDeclaration& declaration, const std::function<double(int rank)>& alone,
                                          double efficiency, double predicted) {
    const auto declared = [&](std::string_view name, double value) { return testing::declared_metric(declaration.test, name, value); };
    auto traces = testing::healthy_traces(8, 2);
    for (Trace& trace : traces) {
        TestResult test;
        test.key = std::string(declaration.test);
        test.status = Status::pass;
        test.metrics = {declared(declaration.alone_step_s, alone(trace.header.rank)), declared(declaration.step_noise, 0.05),
                        declared(declaration.job_efficiency, efficiency),
                        declared(declaration.predicted_job_efficiency, predicted), declared(declaration.job_comm_gbs, 3.3)};
        trace.tests.push_back(std::move(test));
    }
    TempDir temp;
    const auto dir = testing::write_run(temp.path() / "run", traces, "complete", {std::string(declaration.test)});
    const LoadedRun run = load_run(dir, {});
    const Observations observations(run);
    return scaling_findings(observations, Thresholds::built_in().settings());
}

TEST(ScalingRule, TheStencilsWeakScalingIsJudgedByItsOwnDeclaration) {
    const auto& stencil = kernels::stencil3d_names::scaling;
    const auto even = [](int rank) { return 0.002 + 0.00002 * (rank % 3); };
    EXPECT_TRUE(declared_findings_of(stencil, even, 0.93, 0.95).empty());

    const auto slow = declared_findings_of(stencil, [&](int rank) { return rank == 6 ? 0.005 : even(rank); }, 0.4, 0.95);
    ASSERT_EQ(slow.size(), 1u);
    EXPECT_EQ(slow.front().rank, 6);
    EXPECT_EQ(slow.front().level, Level::fail);
    EXPECT_EQ(slow.front().code, ReasonCode::slow_alone);
    EXPECT_EQ(slow.front().metric, kernels::stencil3d_names::alone_step_s);
    EXPECT_NE(slow.front().reason.find("runs the stencil step alone in 2.48x the median rank's time"), std::string::npos)
        << slow.front().reason;
    EXPECT_NE(slow.front().reason.find("its face neighbours wait for its halos each step"), std::string::npos) << slow.front().reason;
    EXPECT_NE(slow.front().reason.find("the job's stencil step with its halo exchange ran at 0.4 of the median rank's step "
                                       "alone, 0.95 predicted from this run's figures (median halo bandwidth 3.3 GB/s)"),
              std::string::npos)
        << slow.front().reason;

    const auto shortfall = declared_findings_of(stencil, even, 0.6, 0.95);
    ASSERT_EQ(shortfall.size(), 1u);
    EXPECT_EQ(shortfall.front().level, Level::warn);
    EXPECT_EQ(shortfall.front().code, ReasonCode::scaling_shortfall);
    EXPECT_NE(shortfall.front().reason.find("the halo exchange costs more beside the update than alone"), std::string::npos)
        << shortfall.front().reason;
}

TEST(ScalingRule, TheCgSolversWeakScalingIsJudgedByItsOwnDeclaration) {
    const auto& cg = kernels::cg_fp64_names::scaling;
    const auto even = [](int rank) { return 0.0004 + 0.000004 * (rank % 3); };
    EXPECT_TRUE(declared_findings_of(cg, even, 0.80, 0.84).empty());  // the allreduces' cost, as predicted
    const auto slow = declared_findings_of(cg, [&](int rank) { return rank == 2 ? 0.0008 : even(rank); }, 0.45, 0.84);
    ASSERT_EQ(slow.size(), 1u);
    EXPECT_EQ(slow.front().rank, 2);
    EXPECT_EQ(slow.front().metric, kernels::cg_fp64_names::alone_iteration_s);
    EXPECT_NE(slow.front().reason.find("runs the CG iteration alone in 1.98x the median rank's time"), std::string::npos)
        << slow.front().reason;
    const auto shortfall = declared_findings_of(cg, even, 0.5, 0.84);
    ASSERT_EQ(shortfall.size(), 1u);
    EXPECT_EQ(shortfall.front().code, ReasonCode::scaling_shortfall);
    EXPECT_NE(shortfall.front().reason.find("the halo exchange and the allreduces cost more beside the solver's work"),
              std::string::npos)
        << shortfall.front().reason;
}

}  // namespace
}  // namespace shakedown::analysis
