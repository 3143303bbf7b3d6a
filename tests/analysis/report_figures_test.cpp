// The report's extra figures: a size sweep where the samples hold one (with its reference), none
// where they do not (no empty figure), and the intra-node matrix with its values.
#include "analysis/report/report_figures.hpp"
#include "comm/link_matrix_columns.hpp"

#include <gtest/gtest.h>

namespace shakedown::analysis {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

SampleTable nccl_samples() {
    return SampleTable({{"collective", "index"}, {"size", "B"}, {"in_place", "flag"}, {"time_us", "us"}, {"algbw_gbs", "GB/s"},
                        {"busbw_gbs", "GB/s"}, {"job_time_us", "us"}, {"job_algbw_gbs", "GB/s"}, {"job_busbw_gbs", "GB/s"},
                        {"wrong_elements", "count"}});
}

TEST(ReportFigures, NcclSweepIsDrawnPerCollectiveOnALogAxisWithItsReference) {
    SampleTable samples = nccl_samples();
    for (double collective : {0.0, 1.0})
        for (double size = 8; size <= 8.0 * (1 << 20); size *= 4)
            for (double in_place : {0.0, 1.0})
                samples.add_row({collective, size, in_place, 10, 1, 1, 10, 1, std::min(300.0, size / 1e4), 0});
    const auto figures = sweep_figures("nccl", samples, {{"calibrated all_reduce 176.5 GB/s", 176.5, 8.0 * (1 << 20)}});
    ASSERT_EQ(figures.size(), 1u);
    EXPECT_EQ(figures[0].id, "sweep-nccl-busbw");
    const std::string& svg = figures[0].svg;
    EXPECT_EQ(count(svg, "class=\"sweep\""), 2u);  // all_reduce and all_gather
    EXPECT_NE(svg.find(">all_reduce</text>"), std::string::npos);
    EXPECT_NE(svg.find(">all_gather</text>"), std::string::npos);
    EXPECT_NE(svg.find(">8 MiB</text>"), std::string::npos);  // the log size axis in powers of two
    EXPECT_NE(svg.find(">8 B</text>"), std::string::npos);
    EXPECT_EQ(count(svg, "class=\"reference\""), 1u);
    EXPECT_NE(svg.find("calibrated all_reduce 176.5 GB/s"), std::string::npos);
    EXPECT_FALSE(figures[0].caption.empty());
}

TEST(ReportFigures, P2pSweepGivesBandwidthAndLatencyPerLinkKindAgainstTheNominal) {
    SampleTable samples({{"size", "B"}, {"peer", "rank"}, {"intra_node", "flag"}, {"latency_min_us", "us"},
                         {"latency_median_us", "us"}, {"latency_p99_us", "us"}, {"bandwidth_gbs", "GB/s"},
                         {"bibandwidth_gbs", "GB/s"}, {"message_rate_mps", "Mmsg/s"}});
    for (double size = 1; size <= 1 << 20; size *= 2)
        for (double peer : {1.0, 4.0}) samples.add_row({size, peer, peer < 2 ? 1.0 : 0.0, 1, 1.5, 2, size / 5e4, 1, 1});
    const auto figures = sweep_figures("p2p", samples, {{"nominal inter-node 25 GB/s", 25.0, std::nullopt}});
    ASSERT_EQ(figures.size(), 2u);
    EXPECT_EQ(figures[0].id, "sweep-p2p-bandwidth");
    EXPECT_EQ(figures[1].id, "sweep-p2p-latency");
    EXPECT_EQ(count(figures[0].svg, "class=\"sweep\""), 2u);
    EXPECT_NE(figures[0].svg.find(">intra-node</text>"), std::string::npos);
    EXPECT_NE(figures[0].svg.find("nominal inter-node 25 GB/s"), std::string::npos);
    EXPECT_EQ(count(figures[1].svg, "class=\"reference\""), 0u);
}

TEST(ReportFigures, NoSweepNoFigure) {
    // No rows; one size only; sizes that are no byte counts (the synthetic run's samples): no figure.
    EXPECT_TRUE(sweep_figures("nccl", nccl_samples()).empty());
    SampleTable one_size = nccl_samples();
    one_size.add_row({0, 1024, 0, 1, 1, 1, 1, 1, 5, 0});
    one_size.add_row({0, 1024, 0, 1, 1, 1, 1, 1, 6, 0});
    EXPECT_TRUE(sweep_figures("nccl", one_size).empty());
    SampleTable not_sizes = nccl_samples();
    for (int row = 0; row < 4; ++row) not_sizes.add_row({double(row), 21.3 + row * 0.37, 22.1, 20.9, 1, 1, 1, 1, 21.7, 0});
    EXPECT_TRUE(sweep_figures("nccl", not_sizes).empty());
    EXPECT_TRUE(sweep_figures("stream", not_sizes).empty());
    EXPECT_TRUE(svg_sweep({"empty", "GB/s", {}, {}}).empty());
    // A model without a run gives no figure either.
    EXPECT_TRUE(report_figures(ReportModel{}).empty());
}

TEST(ReportFigures, IntraNodeMatrixPrintsEachPairsBandwidth) {
    SampleTable matrix(link_matrix_columns::columns());
    for (int src = 0; src < 4; ++src)
        for (int dst = 0; dst < 4; ++dst)
            if (src != dst) matrix.add_row({double(src), double(dst), 1.0, 0.8, (src + dst == 5) ? 75.0 : 150.0});
    const auto figure = intra_node_matrix_figure(matrix, {"rank 0 / GPU 0", "rank 1 / GPU 1", "rank 2 / GPU 2", "rank 3 / GPU 3"});
    ASSERT_TRUE(figure);
    EXPECT_EQ(figure->id, "intra-node-matrix");
    EXPECT_EQ(count(figure->svg, "class=\"cell\""), 12u);
    EXPECT_EQ(count(figure->svg, ">150</text>"), 10u);
    EXPECT_EQ(count(figure->svg, ">75</text>"), 2u);  // 2 <-> 3
    EXPECT_NE(figure->svg.find(">rank 2 / GPU 2</text>"), std::string::npos);
    EXPECT_NE(figure->svg.find(css_colour(sequential_colour(0.5))), std::string::npos);  // 75 of the median 150

    // Inter-node pairs only: no matrix.
    SampleTable inter(link_matrix_columns::columns());
    inter.add_row({0, 1, 0.0, 2.5, 24.0});
    EXPECT_FALSE(intra_node_matrix_figure(inter, {}));
}

}  // namespace
}  // namespace shakedown::analysis
