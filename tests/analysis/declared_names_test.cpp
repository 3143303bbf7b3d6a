// The names the analyzer reads from the tests' declarations (their *_names.hpp) are the names
// those tests declare: every metric under its test's key, every sample column among the test's
// columns. A names header that drifted from its spec would make the analyzer look for a figure no
// run carries and stay silent; this is what keeps the constants honest.
#include "analysis/report/fp64_capability.hpp"
#include "analysis/report/headline_figures.hpp"
#include "analysis/report/sweep_figure_declarations.hpp"
#include "analysis/rules/figures/credibility_rule.hpp"
#include "core/registry.hpp"
#include "kernels/ladder/gemm_ladder_names.hpp"
#include "kernels/stencil/stencil3d_names.hpp"
#include "kernels/stream/stream_names.hpp"
#include "mpi/allpairs/allpairs_names.hpp"
#include "mpi/collectives/mpi_coll_names.hpp"
#include "mpi/nccl/nccl_names.hpp"
#include "mpi/pairs/p2p_names.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace shakedown::analysis {
namespace {

bool declares_column(std::string_view test_key, std::string_view column) {
    const Test* test = Registry::instance().find(test_key);
    if (test == nullptr) return false;
    const auto& columns = test->spec().samples;
    return std::any_of(columns.begin(), columns.end(), [&](const SampleTable::Column& c) { return c.name == column; });
}

// "p2p.inter_node_bandwidth_gbs" is declared by p2p.
bool declared(std::string_view metric) {
    const auto dot = metric.find('.');
    return dot != std::string_view::npos && Registry::instance().declaration(metric.substr(0, dot), metric) != nullptr;
}

TEST(DeclaredNames, EverySweepFigureReadsColumnsAndMetricsItsTestDeclares) {
    for (const SweepFigureDeclaration* figure : sweep_figure_declarations) {
        SCOPED_TRACE(std::string(figure->id));
        ASSERT_NE(Registry::instance().find(figure->test), nullptr);
        EXPECT_TRUE(declares_column(figure->test, figure->size_column));
        EXPECT_TRUE(declares_column(figure->test, figure->value_column));
        if (figure->split != SweepSeriesSplit::none) EXPECT_TRUE(declares_column(figure->test, figure->split_column));
        if (figure->split == SweepSeriesSplit::by_index_name) EXPECT_FALSE(figure->index_names.empty());
        if (!figure->skip_column.empty()) EXPECT_TRUE(declares_column(figure->test, figure->skip_column));
        for (const SweepNominalLine& line : figure->nominal_lines)
            EXPECT_NE(Registry::instance().declaration(figure->test, line.metric), nullptr) << line.metric;
        for (const SweepCalibratedPoint& point : figure->calibrated_points)
            EXPECT_NE(Registry::instance().declaration(figure->test, point.metric), nullptr) << point.metric;
    }
}

TEST(DeclaredNames, TheRulesAndSectionsReadDeclaredMetrics) {
    // The credibility rule finds its figures by their declared bound.
    for (const auto name : {mpi::allpairs_names::intra_node_bandwidth_max_gbs, mpi::p2p_names::intra_node_bandwidth_max_gbs})
        EXPECT_EQ(Registry::instance().declaration(name.substr(0, name.find('.')), name)->bound, PhysicalBound::node_memory)
            << name;
    for (const auto name : {mpi::allpairs_names::inter_node_bandwidth_max_gbs, mpi::p2p_names::inter_node_bandwidth_max_gbs})
        EXPECT_EQ(Registry::instance().declaration(name.substr(0, name.find('.')), name)->bound, PhysicalBound::node_network)
            << name;
    for (const auto name : {fp64_metrics::dgemm, fp64_metrics::lu, fp64_metrics::lu_residual, fp64_metrics::cg,
                            fp64_metrics::cg_bound_fraction, fp64_metrics::emulated, fp64_metrics::emulated_error})
        EXPECT_TRUE(declared(name)) << name;
    for (const auto name :
         {kernels::stream_names::triad_gbs, kernels::stream_names::copy_max_gbs, kernels::stream_names::triad_max_gbs,
          kernels::gemm_ladder_names::bf16_tflops, kernels::gemm_ladder_names::fp64_tflops,
          kernels::stencil3d_names::gcells_per_s, mpi::mpi_coll_names::rank_time_ratio, mpi::mpi_coll_names::slowest_rank,
          mpi::mpi_coll_names::slowest_rank_ratio, mpi::nccl_names::all_reduce_busbw_gbs})
        EXPECT_TRUE(declared(name)) << name;
}

// The check can fail: a name no test declares is not found.
// The report's bar charts and the price table read these, in this order: each a figure its test
// declares, at a place of its own.
TEST(DeclaredNames, HeadlineFiguresAreDeclaredByTheirTestsAtPlacesOfTheirOwn) {
    const auto figures = headline_figures();
    std::vector<std::string> order;
    for (const DeclaredHeadline& declared : figures) {
        SCOPED_TRACE(declared.figure.metric);
        EXPECT_NE(Registry::instance().declaration(declared.test, declared.figure.metric), nullptr);
        EXPECT_EQ(declared.figure.metric.rfind(declared.test + ".", 0), 0U);
        order.push_back(declared.figure.metric);
    }
    for (std::size_t i = 1; i < figures.size(); ++i) EXPECT_LT(figures[i - 1].figure.place, figures[i].figure.place);
    EXPECT_EQ(order,
              (std::vector<std::string>{"dgemm_fp64.tflops", "stream.triad_gbs", "gemm_ladder.bf16_tflops",
                                        "gemm_ladder.fp64_tflops", "stencil3d.gcells_per_s", "nccl.all_reduce_busbw_gbs"}));
    std::vector<std::string> priced;
    for (const DeclaredHeadline& declared : figures)
        if (!declared.figure.priced_as.empty()) priced.push_back(declared.figure.priced_as);
    EXPECT_EQ(priced, (std::vector<std::string>{"FP64 TFLOP/s", "BF16 TFLOP/s", "NCCL all_reduce bus GB/s"}));
}

TEST(DeclaredNames, AnUndeclaredNameIsNotFound) {
    EXPECT_FALSE(declared("p2p.no_such_figure_gbs"));
    EXPECT_FALSE(declared("no_such_test.tflops"));
    EXPECT_FALSE(declares_column(mpi::p2p_names::key, "no_such_column"));
}

}  // namespace
}  // namespace shakedown::analysis
