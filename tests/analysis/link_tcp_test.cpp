// tcp_bandwidth's link matrix (health/network/tcp_bandwidth_names.hpp): one matrix per measured
// interface, localized like allpairs' (rules/links/link_matrices.hpp). A node slow on one interface is
// named with that interface, under test tcp_bandwidth, the other interface passes; the analyzer
// awaits a confirmation, and the confirmation's own TCP matrix confirms it (it drains) or does not
// reproduce it (a WARN).
#include "analysis/rules/links/link_localization.hpp"
#include "analysis_fixtures.hpp"
#include "analysis_outcome.hpp"
#include "bench/synthetic_run.hpp"
#include "health/network/tcp_bandwidth_names.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <memory>

namespace shakedown::analysis {
namespace {

namespace names = health::tcp_bandwidth_names;
using testing::TempDir;

constexpr int nodes = 5;

bench::SyntheticRunSpec one_rank_per_node(std::optional<int> slow_node, std::uint64_t seed) {
    bench::SyntheticRunSpec spec;
    spec.ranks = nodes;
    spec.ranks_per_node = 1;
    spec.gpus = false;
    spec.tests = {"allpairs"};
    spec.slow_node = slow_node;
    spec.seed = seed;
    spec.run_id = testing::test_run_id;
    return spec;
}

// The TCP matrix of eth0 (healthy) and eth1 (`slow_on_eth1` slow) from two synthetic link
// matrices, with tcp_bandwidth's extra columns.
SampleTable tcp_matrix(std::optional<int> slow_on_eth1, std::uint64_t seed) {
    SampleTable matrix(names::sample_columns());
    int interface = 0;
    for (const std::optional<int> slow : {std::optional<int>{}, slow_on_eth1}) {
        const SampleTable one =
            bench::synthetic_link_matrix(one_rank_per_node(slow, seed + static_cast<std::uint64_t>(interface)));
        const std::size_t bandwidth = *one.column_index(link_matrix_columns::bandwidth_gbs);
        const std::size_t latency = *one.column_index(link_matrix_columns::latency_us);
        for (std::vector<double> row : one.rows()) {
            row.push_back(interface);
            row.push_back(row[bandwidth]);
            row.push_back(row[latency] * 4.0);
            matrix.add_row(std::move(row));
        }
        ++interface;
    }
    return matrix;
}

// A run whose only test is tcp_bandwidth: every rank a pass, rank 0 with the matrix.
std::vector<Trace> tcp_traces(std::optional<int> slow_on_eth1, std::uint64_t seed) {
    std::vector<Trace> traces = testing::healthy_traces(nodes, 1);
    for (int rank = 0; rank < nodes; ++rank) {
        Trace& trace = traces[static_cast<std::size_t>(rank)];
        TestResult tcp;
        tcp.key = std::string(names::key);
        tcp.status = Status::pass;
        tcp.start_utc = trace.tests.front().start_utc;
        tcp.end_utc = trace.tests.front().end_utc;
        if (rank == 0) {
            tcp.samples = tcp_matrix(slow_on_eth1, seed);
            tcp.parameters[std::string(names::interfaces_measured)] = "eth0,eth1";
        }
        trace.tests = {tcp};
    }
    return traces;
}

TEST(LinkTcp, ASlowNodeOnOneInterfaceIsNamedWithItAndTheOtherPasses) {
    const auto run = std::make_unique<LoadedRun>(testing::loaded_run(testing::healthy_traces(nodes, 1)));
    const Observations observations(*run);
    TestResult rank0;
    rank0.parameters[std::string(names::interfaces_measured)] = "eth0,eth1";
    const auto matrices = split_link_matrix(names::link_matrix, tcp_matrix(3, 1), &rank0);
    ASSERT_EQ(matrices.size(), 2u);
    EXPECT_EQ(matrices[0].name, "tcp_bandwidth on eth0");
    EXPECT_EQ(matrices[1].name, "tcp_bandwidth on eth1");

    const LinkLocalization eth0 = localize_links(matrices[0], observations, nullptr, LinkBands{});
    ASSERT_TRUE(eth0.analyzed) << eth0.note;
    EXPECT_TRUE(link_findings(eth0, observations).empty());

    const LinkLocalization eth1 = localize_links(matrices[1], observations, nullptr, LinkBands{});
    const auto findings = link_findings(eth1, observations);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].node, "node0003");
    EXPECT_EQ(findings[0].test, names::key);
    EXPECT_EQ(findings[0].metric, names::link_median_gbs);
    EXPECT_EQ(findings[0].link_matrix, "tcp_bandwidth on eth1");
    EXPECT_EQ(findings[0].level, Level::fail);
    EXPECT_TRUE(findings[0].reason.starts_with("eth1: slow node: ")) << findings[0].reason;
}

TEST(LinkTcp, AnalyzerAwaitsThenTheTcpMatrixMeasuredAgainConfirmsOrNot) {
    TempDir temp;
    const std::vector<std::string> tests = {std::string(names::key)};
    const auto run = testing::write_run(temp.path() / "run", tcp_traces(3, 1), "complete", tests);
    const testing::AnalysisOutcome first = testing::analyze_in_process({.run_dir = run, .print_confirmation_plan = true});
    EXPECT_EQ(first.exit_code, 1) << first.out << first.err;
    EXPECT_EQ(testing::verdict_of(first, "node0003"), "fail");
    EXPECT_EQ(first.drain.find("node0003"), std::string::npos) << first.drain;  // awaits its confirmation
    EXPECT_NE(first.out.find("confirm-tests: tcp_bandwidth\n"), std::string::npos) << first.out;
    ASSERT_EQ(first.summary["other_localizations"].size(), 2u);
    EXPECT_EQ(first.summary["other_localizations"][1]["matrix"], "tcp_bandwidth on eth1");
    EXPECT_EQ(first.summary["other_localizations"][1]["slow_nodes"][0]["node"], "node0003");
    EXPECT_TRUE(first.summary["localization"].is_null());  // no allpairs in this run
    // report.html draws each interface's matrix as a heatmap of its own.
    std::ifstream html_file(run / "report.html");
    const std::string html((std::istreambuf_iterator<char>(html_file)), std::istreambuf_iterator<char>());
    EXPECT_NE(html.find("<h3>Links (tcp_bandwidth on eth0)</h3>"), std::string::npos);
    EXPECT_NE(html.find("<h3>Links (tcp_bandwidth on eth1)</h3>"), std::string::npos);
    EXPECT_NE(html.find("node0003 &lt;-&gt; "), std::string::npos);  // a cell's tooltip

    const auto slow_again = testing::write_run(temp.path() / "slow-again", tcp_traces(3, 11), "complete", tests);
    const testing::AnalysisOutcome confirmed = testing::analyze_in_process({.run_dir = run, .confirmation_dir = slow_again});
    EXPECT_EQ(confirmed.exit_code, 1) << confirmed.out << confirmed.err;
    EXPECT_NE(confirmed.drain.find("NodeName=node0003 "), std::string::npos) << confirmed.drain;
    const auto findings = testing::findings_of(confirmed, "node0003");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0]["confirmation"], "confirmed");

    const auto healthy_again =
        testing::write_run(temp.path() / "healthy-again", tcp_traces(std::nullopt, 21), "complete", tests);
    const testing::AnalysisOutcome not_reproduced =
        testing::analyze_in_process({.run_dir = run, .confirmation_dir = healthy_again});
    EXPECT_EQ(not_reproduced.drain.find("node0003"), std::string::npos) << not_reproduced.drain;
    const auto warned = testing::findings_of(not_reproduced, "node0003");
    ASSERT_EQ(warned.size(), 1u);
    EXPECT_EQ(warned[0]["confirmation"], "not_reproduced");
    EXPECT_EQ(warned[0]["level"], "warn");
}

}  // namespace
}  // namespace shakedown::analysis
