// The Workload section over a run folder written with the real TraceWriter: 2 nodes of 2 ranks
// that ran train_step. Per device the figures it recorded, the scaling rows (one GPU, each node,
// the job) with their predictions, the price per million tokens and a standard task from a node
// price, the "as built" line where the prediction gives the efficiency, and the figure. The
// science kernels' weak scaling beside it, also in a run without train_step.
#include "analysis/load/observations.hpp"
#include "analysis/load/run_loader.hpp"
#include "analysis/report/svg_plots.hpp"
#include "analysis/report/workload_section.hpp"
#include "analysis/rules/settings/analysis_settings.hpp"
#include "analysis_fixtures.hpp"
#include "kernels/cg/cg_fp64_names.hpp"
#include "kernels/stencil/stencil3d_names.hpp"
#include "kernels/train/train_step_names.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace shakedown::analysis {
namespace {

namespace names = kernels::train_names;
using testing::TempDir;

Metric metric(std::string_view name, double value, std::optional<double> nominal = std::nullopt) {
    return testing::declared_metric(names::key, name, value, nominal);
}

struct WorkloadRun {
    TempDir temp;
    LoadedRun run;
    WorkloadRun() : run(make()) {}

    LoadedRun make() {
        auto traces = testing::healthy_traces(4, 2);
        for (Trace& trace : traces) {
            TestResult test;
            test.key = std::string(names::key);
            test.status = Status::pass;
            test.parameters = {{std::string(names::recorded_model), "llama3_8b: hidden 4096"},
                               {std::string(names::recorded_engine), "GPU bf16"},
                               {std::string(names::recorded_topology), "PCIe between its 2 GPUs (no active NVLink)"}};
            test.metrics = {metric(names::step_time_s, 0.05), metric(names::tokens_per_s, 80000.0),
                            metric(names::model_tflops, 500.0, 1000.0), metric(names::mfu_of_measured_peak, 0.65),
                            metric(names::alone_step_s, 0.04), metric(names::node_efficiency, 0.62),
                            metric(names::predicted_node_efficiency, 0.64), metric(names::node_busbw_gbs, 21.0),
                            metric(names::job_efficiency, 0.8), metric(names::predicted_job_efficiency, 0.82),
                            metric(names::job_busbw_gbs, 12.0), metric(names::job_gpus, 4.0)};
            trace.tests.push_back(std::move(test));
        }
        const auto dir = testing::write_run(temp.path() / "run", traces, "complete", {std::string(names::key)});
        return load_run(dir, {});
    }
};

TEST(WorkloadSection, DevicesScalingPriceAndTheMachineAsBuilt) {
    const WorkloadRun fixture;
    const Observations observations(fixture.run);
    AnalysisSettings settings;
    settings.price_per_node_hour = 10.0;
    settings.currency = "EUR";
    const Workload workload = make_workload(observations, settings);
    ASSERT_EQ(workload.devices.size(), 4u);
    EXPECT_DOUBLE_EQ(*workload.devices.front().mfu, 0.5);
    EXPECT_DOUBLE_EQ(workload.job_tokens_per_s, 320000.0);
    EXPECT_EQ(workload.nodes, 2);
    ASSERT_EQ(workload.scaling.size(), 4u);  // one GPU, two nodes, the job
    EXPECT_EQ(workload.scaling[1].scope, "node0000 (PCIe between its 2 GPUs (no active NVLink))");
    EXPECT_EQ(workload.scaling[1].gpus, 2);
    EXPECT_EQ(workload.scaling[3].gpus, 4);
    EXPECT_DOUBLE_EQ(workload.scaling[3].measured, 0.8);
    // 2 nodes x 10 EUR an hour for 320,000 tokens a second.
    EXPECT_NEAR(*workload.price_per_million_tokens, 20.0 / (320000.0 * 3600.0) * 1e6, 1e-12);
    EXPECT_NEAR(*workload.task_hours, 1e9 / 320000.0 / 3600.0, 1e-9);
    EXPECT_NEAR(*workload.task_price, *workload.task_hours * 20.0, 1e-9);

    const auto lines = workload_lines(workload);
    const auto as_built = std::find_if(lines.begin(), lines.end(), [](const std::string& line) {
        return line.find("node0000 (PCIe between its 2 GPUs (no active NVLink)): as built: efficiency 0.62 of T1, predicted 0.64") !=
               std::string::npos;
    });
    EXPECT_NE(as_built, lines.end());
    EXPECT_EQ(workload_scaling_table(workload).rows.size(), 4u);
    EXPECT_EQ(workload_device_table(workload).rows.size(), 4u);

    std::vector<ScalingPoint> points;
    for (const ScalingRow& row : workload.scaling) points.push_back({row.scope, row.gpus, row.measured, row.predicted});
    const std::string svg = svg_scaling("efficiency", points);
    EXPECT_NE(svg.find("<svg"), std::string::npos);
    EXPECT_NE(svg.find("job (2 node(s)): measured 0.8"), std::string::npos);
    EXPECT_EQ(svg_scaling("efficiency", {points.front()}), "");
}

// The standard task's GPU energy: its tokens x the summed power over the summed tokens per second,
// priced per kWh; a GPU of the step without an energy figure leaves the task "not measured".
TEST(WorkloadSection, TheTasksGpuEnergyAndItsPriceFromEachGpusMeanPower) {
    Workload workload;
    workload.task_tokens = 1e9;
    workload.currency = "EUR";
    workload.devices = {{.node = "node0000", .rank = 0, .gpu = 0, .step_s = 0.05, .tokens_per_s = 80000.0},
                        {.node = "node0000", .rank = 1, .gpu = 1, .step_s = 0.05, .tokens_per_s = 80000.0}};
    std::vector<EnergyRow> energy(2);
    for (int rank : {0, 1}) {
        energy[rank].test = std::string(names::key);
        energy[rank].rank = rank;
        energy[rank].power_w = 600.0;
    }
    AnalysisSettings settings;
    settings.energy_per_kwh = 0.25;
    Workload priced = workload;
    add_task_energy(priced, energy, settings);
    // 1200 W for 160,000 tokens/s: 7.5 mJ a token, 7.5 MJ for 10^9 tokens.
    ASSERT_TRUE(priced.task_kwh);
    EXPECT_NEAR(*priced.task_kwh, 7.5e6 / 3.6e6, 1e-12);
    EXPECT_NEAR(*priced.task_energy_price, 7.5e6 / 3.6e6 * 0.25, 1e-12);
    const auto lines = workload_lines(priced);
    EXPECT_NE(std::find_if(lines.begin(), lines.end(),
                           [](const std::string& line) {
                               return line.find("the same task's GPU energy: 2.08 kWh, 0.521 EUR at 0.25 EUR per kWh") !=
                                      std::string::npos;
                           }),
              lines.end())
        << lines.back();

    energy[1].power_w.reset();
    energy[1].not_measured = "the phase lasted 0.25 s";
    Workload partial = workload;
    add_task_energy(partial, energy, settings);
    EXPECT_FALSE(partial.task_kwh);
    EXPECT_EQ(partial.task_energy_note, "the task's energy: not measured on 1 of the step's 2 GPU(s) (Energy)");
}

// stencil3d on every rank of 2 nodes x 2 ranks; cg_fp64 on rank 0 alone (a rank alone has no
// scaling to show).
TEST(WorkloadSection, ScienceKernelsWeakScalingWithoutATrainingStep) {
    namespace stencil = kernels::stencil3d_names;
    namespace cg = kernels::cg_fp64_names;
    TempDir temp;
    auto traces = testing::healthy_traces(4, 2);
    for (std::size_t rank = 0; rank < traces.size(); ++rank) {
        TestResult test;
        test.key = std::string(stencil::key);
        test.metrics = {testing::declared_metric(stencil::key, stencil::job_efficiency, 0.88),
                        testing::declared_metric(stencil::key, stencil::predicted_job_efficiency, 0.92),
                        testing::declared_metric(stencil::key, stencil::job_halo_gbs, 3.5)};
        traces[rank].tests.push_back(std::move(test));
        if (rank == 0) {
            TestResult alone;
            alone.key = std::string(cg::key);
            alone.metrics = {testing::declared_metric(cg::key, cg::job_efficiency, 1.0),
                             testing::declared_metric(cg::key, cg::predicted_job_efficiency, 1.0)};
            traces[rank].tests.push_back(std::move(alone));
        }
    }
    const auto dir = testing::write_run(temp.path() / "run", traces, "complete", {std::string(stencil::key), std::string(cg::key)});
    const LoadedRun run = load_run(dir, {});
    const Observations observations(run);
    const Workload workload = make_workload(observations, AnalysisSettings{});
    EXPECT_FALSE(workload.empty());
    EXPECT_TRUE(workload.devices.empty());
    ASSERT_EQ(workload.science.size(), 1u) << "cg_fp64 on one rank has no scaling row";
    const ScienceScalingRow& row = workload.science.front();
    EXPECT_EQ(row.test, "stencil3d");
    EXPECT_EQ(row.ranks, 4);
    EXPECT_EQ(row.nodes, 2);
    EXPECT_DOUBLE_EQ(row.measured, 0.88);
    EXPECT_DOUBLE_EQ(row.predicted, 0.92);
    EXPECT_DOUBLE_EQ(*row.comm_gbs, 3.5);
    const WorkloadTable table = workload_science_table(workload);
    ASSERT_EQ(table.rows.size(), 1u);
    EXPECT_EQ(table.rows[0][1], "4 (2)");
    EXPECT_EQ(table.rows[0][4], "0.957");
    EXPECT_EQ(table.rows[0][5], std::string(stencil::scaling.comm_figure) + " 3.5 GB/s");
    const auto lines = workload_lines(workload);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_NE(lines[0].find("science kernels: weak-scaling efficiency"), std::string::npos);
    EXPECT_EQ(lines[1], "stencil3d on 4 rank(s), 2 node(s): weak-scaling efficiency 0.88, predicted 0.92 from its " +
                            std::string(stencil::scaling.comm_figure) + " (3.5 GB/s)");
}

TEST(WorkloadSection, EmptyWithoutTheTest) {
    TempDir temp;
    const auto dir = testing::write_run(temp.path() / "run", testing::healthy_traces(2, 2));
    const LoadedRun run = load_run(dir, {});
    const Observations observations(run);
    EXPECT_TRUE(make_workload(observations, AnalysisSettings{}).empty());
    EXPECT_TRUE(workload_lines(make_workload(observations, AnalysisSettings{})).empty());
}

}  // namespace
}  // namespace shakedown::analysis
