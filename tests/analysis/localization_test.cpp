// Link localization on hand-made matrices (no files): the rules for slow nodes, links and
// groups, and that a healthy or too small fleet yields none.
#include "analysis/rules/links/link_localization.hpp"
#include "analysis/rules/settings/topology.hpp"
#include "analysis_fixtures.hpp"
#include "core/errors.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <memory>

namespace shakedown::analysis {
namespace {

// One rank per node; `bandwidth(a, b)` gives the node pair's GB/s.
struct Matrix {
    std::unique_ptr<LoadedRun> run;
    std::unique_ptr<Observations> observations;  // rows point into *run
    SampleTable samples{{{"src", "rank"}, {"dst", "rank"}, {"intra_node", "flag"}, {"latency_us", "us"}, {"bandwidth_gbs", "GB/s"}}};
};

Matrix matrix(int nodes, const std::function<double(int, int)>& bandwidth) {
    Matrix m;
    m.run = std::make_unique<LoadedRun>(testing::loaded_run(testing::healthy_traces(nodes, 1)));
    m.observations = std::make_unique<Observations>(*m.run);
    for (int a = 0; a < nodes; ++a)
        for (int b = 0; b < nodes; ++b)
            if (a != b) m.samples.add_row({double(a), double(b), 0.0, 2.0, bandwidth(std::min(a, b), std::max(a, b))});
    return m;
}

TEST(Localization, HealthyFleetHasNothingSlow) {
    const Matrix m = matrix(6, [](int a, int b) { return 10.0 + 0.1 * ((a * 7 + b) % 3); });
    const auto result = localize_links(m.samples, *m.observations, nullptr, LinkBands{});
    EXPECT_TRUE(result.analyzed);
    EXPECT_EQ(result.links.size(), 15u);
    EXPECT_TRUE(result.slow_nodes.empty());
    EXPECT_TRUE(result.slow_links.empty());
    EXPECT_TRUE(result.slow_groups.empty());
    EXPECT_TRUE(link_findings(result, *m.observations).empty());
}

TEST(Localization, TwoNodesCannotTellNodeFromLink) {
    const Matrix m = matrix(2, [](int, int) { return 1.0; });
    const auto result = localize_links(m.samples, *m.observations, nullptr, LinkBands{});
    EXPECT_FALSE(result.analyzed);
    EXPECT_NE(result.note.find("2 nodes"), std::string::npos);
}

TEST(Localization, TwoSlowNodesInALargerFleetAreBothFound) {
    const Matrix m = matrix(8, [](int a, int b) { return a == 2 || b == 2 || a == 5 || b == 5 ? 3.0 : 10.0; });
    const auto result = localize_links(m.samples, *m.observations, nullptr, LinkBands{});
    ASSERT_EQ(result.slow_nodes.size(), 2u);
    EXPECT_EQ(result.slow_nodes[0].node, "node0002");
    EXPECT_EQ(result.slow_nodes[1].node, "node0005");
    EXPECT_TRUE(result.slow_links.empty());
    EXPECT_EQ(link_findings(result, *m.observations).size(), 2u);
}

TEST(Localization, SlowNodesFillingOneSwitchAreThatSwitch) {
    const Matrix m = matrix(6, [](int a, int b) { return a >= 4 || b >= 4 ? 2.0 : 10.0; });
    const Topology topology = Topology::parse("SwitchName=a Nodes=node[0000-0003]\nSwitchName=b Nodes=node[0004-0005]\n", "t");
    const auto result = localize_links(m.samples, *m.observations, &topology, LinkBands{});
    EXPECT_TRUE(result.slow_nodes.empty());
    ASSERT_EQ(result.slow_groups.size(), 1u);
    EXPECT_EQ(result.slow_groups[0].switch_name, "b");
}

TEST(Topology, BadLinesAreInputErrorsWithTheirLine) {
    EXPECT_THROW(Topology::parse("SwitchName=a Nodes=node[1-\n", "t.conf"), InputError);
    try {
        Topology::parse("Nodes=node1\n", "t.conf");
        FAIL();
    } catch (const InputError& error) {
        EXPECT_STREQ(error.what(), "t.conf:1: a line without SwitchName=");
    }
    // Each line within the hostlist limit, together beyond it: refused, naming the line.
    try {
        Topology::parse("SwitchName=a Nodes=a[1-600]-[1-1000]\nSwitchName=b Nodes=b[1-600]-[1-1000]\n", "t.conf");
        FAIL() << "1.2 million names in one topology file were accepted";
    } catch (const InputError& error) {
        EXPECT_EQ(std::string(error.what()).rfind("t.conf:2: Nodes=b[1-600]-[1-1000]: ", 0), 0u) << error.what();
    }
    const Topology topology = Topology::parse("switchname=s1 nodes=n[1-2] # comment\n\n", "t.conf");
    EXPECT_EQ(topology.switch_of("n2"), "s1");
    EXPECT_FALSE(topology.switch_of("n3"));
}

}  // namespace
}  // namespace shakedown::analysis
