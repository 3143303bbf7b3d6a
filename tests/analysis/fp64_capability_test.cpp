// The FP64 capability section: per device native DGEMM, LU with its efficiency, CG and emulated
// FP64 side by side; per node the GPU sums and their price; the host LU as one job-wide line.
#include "analysis/load/observations.hpp"
#include "analysis/report/fp64_capability.hpp"
#include "analysis/rules/settings/thresholds.hpp"
#include "analysis_fixtures.hpp"
#include "core/registry.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace shakedown::analysis {
namespace {

void add_test(Trace& trace, const std::string& key, const std::string& device, std::vector<Metric> metrics) {
    TestResult test;
    test.key = key;
    if (!device.empty()) test.parameters["device"] = device;
    test.metrics = std::move(metrics);
    trace.tests.push_back(std::move(test));
}

Metric rate(const std::string& name, double value, std::optional<double> nominal) {
    return Metric{name, "TFLOP/s", value, nominal, Better::higher};
}

Metric ratio(const std::string& name, double value) { return Metric{name, "ratio", value, std::nullopt, Better::lower}; }

// One node with two H200s; GPU 1's LU is slower.
LoadedRun two_gpu_node() {
    auto traces = testing::healthy_traces(2, 2);
    for (int rank = 0; rank < 2; ++rank) {
        add_test(traces[rank], "dgemm_fp64", "gpu", {rate("dgemm_fp64.tflops", 57.9, 67.0)});
        add_test(traces[rank], "lu_fp64", "gpu",
                 {rate("lu_fp64.tflops", rank == 0 ? 34.2 : 28.95, 67.0), ratio("lu_fp64.scaled_residual", 0.003)});
        add_test(traces[rank], "cg_fp64", "gpu",
                 {Metric{"cg_fp64.gflops", "GFLOP/s", 480.0, 600.0, Better::higher},
                  Metric{"cg_fp64.bandwidth_bound_fraction", "fraction", 0.8, std::nullopt, Better::higher}});
        add_test(traces[rank], "gemm_ladder", "",
                 {rate("gemm_ladder.fp64_emulated_tflops", 20.7, std::nullopt),
                  ratio("gemm_ladder.fp64_emulated_max_rel_error_vs_native", 7.4e-15)});
    }
    LoadedRun run = testing::loaded_run(traces);
    for (int rank = 0; rank < 2; ++rank) {
        run.ranks[rank].gpu = rank;
        run.ranks[rank].gpu_uuid = "GPU-" + std::to_string(rank);
    }
    return run;
}

AnalysisSettings priced(double per_hour) {
    AnalysisSettings settings = Thresholds::built_in().settings();
    settings.price_per_node_hour = per_hour;
    return settings;
}

TEST(Fp64Capability, EveryGpuIsARowWithItsLuEfficiencyAndEmulatedFigures) {
    const LoadedRun run = two_gpu_node();
    const Observations observations(run);
    const Fp64Capability capability = make_fp64_capability(observations, priced(40.0));
    ASSERT_EQ(capability.nodes.size(), 1u);
    const Fp64Node& node = capability.nodes[0];
    ASSERT_EQ(node.devices.size(), 2u);
    const Fp64Device& gpu1 = node.devices[1];
    EXPECT_EQ(gpu1.label(), "GPU 1");
    EXPECT_EQ(gpu1.gpu_uuid, "GPU-1");
    ASSERT_TRUE(gpu1.lu_efficiency);
    EXPECT_NEAR(*gpu1.lu_efficiency, 28.95 / 57.9, 1e-12);
    EXPECT_NEAR(*node.devices[0].lu_efficiency, 34.2 / 57.9, 1e-12);
    EXPECT_NEAR(*gpu1.lu_tflops->fraction(), 28.95 / 67.0, 1e-12);
    EXPECT_DOUBLE_EQ(*gpu1.lu_scaled_residual, 0.003);
    EXPECT_DOUBLE_EQ(*gpu1.cg_bound_fraction, 0.8);
    EXPECT_NEAR(*gpu1.cg_gflops->fraction(), 0.8, 1e-12);
    EXPECT_DOUBLE_EQ(gpu1.emulated_tflops->value, 20.7);
    EXPECT_FALSE(gpu1.emulated_tflops->nominal);
    EXPECT_DOUBLE_EQ(*gpu1.emulated_error, 7.4e-15);
    EXPECT_NEAR(*gpu1.emulated_vs_native, 20.7 / 57.9, 1e-12);
    // The node: its GPUs summed, each nominal known, and the price over the usable sum.
    EXPECT_NEAR(node.gpu_dgemm_tflops->value, 115.8, 1e-9);
    EXPECT_NEAR(*node.gpu_dgemm_tflops->nominal, 134.0, 1e-9);
    EXPECT_NEAR(*node.price_per_dgemm_tflops_hour, 40.0 / 115.8, 1e-12);
    EXPECT_NEAR(*node.price_per_lu_tflops_hour, 40.0 / (34.2 + 28.95), 1e-12);
    EXPECT_FALSE(capability.host_lu);

    const Fp64Table table = fp64_table(capability);
    ASSERT_EQ(table.rows.size(), 2u);
    EXPECT_EQ(table.rows[1][1], "GPU 1");
    EXPECT_EQ(table.rows[1][2], "57.9 (0.86 of 67)");
    EXPECT_EQ(table.rows[1][5], "0.50");  // LU / DGEMM
    const auto lines = fp64_lines(capability);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find("node0000: 2 GPU(s): DGEMM 116 (0.86 of 134) TFLOP/s"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("per usable DGEMM TFLOP/s per hour"), std::string::npos) << lines[0];
}

// ScaLAPACK's LU spans the job's host ranks: one line, against those ranks' DGEMM summed; no
// node row claims it, and no price is given without a node price.
TEST(Fp64Capability, TheHostLuIsOneJobWideLineAgainstTheSameRanksDgemm) {
    auto traces = testing::healthy_traces(4, 2);
    for (Trace& trace : traces) {
        add_test(trace, "dgemm_fp64", "host", {rate("dgemm_fp64.tflops", 0.028, 0.1)});
        add_test(trace, "lu_fp64", "host", {rate("lu_fp64.tflops", 0.068, 0.4), ratio("lu_fp64.scaled_residual", 0.004)});
        trace.tests.back().parameters["grid_used"] = "2x2";
    }
    const LoadedRun run = testing::loaded_run(traces);
    const Observations observations(run);
    const Fp64Capability capability = make_fp64_capability(observations, Thresholds::built_in().settings());
    ASSERT_TRUE(capability.host_lu);
    EXPECT_EQ(capability.host_lu->ranks, 4);
    EXPECT_EQ(capability.host_lu->grid, "2x2");
    EXPECT_DOUBLE_EQ(capability.host_lu->tflops.value, 0.068);
    EXPECT_NEAR(*capability.host_lu->tflops.fraction(), 0.17, 1e-12);
    EXPECT_NEAR(*capability.host_lu->efficiency, 0.068 / (4 * 0.028), 1e-12);
    ASSERT_EQ(capability.nodes.size(), 2u);
    for (const Fp64Node& node : capability.nodes) {
        EXPECT_FALSE(node.gpu_dgemm_tflops);
        EXPECT_FALSE(node.price_per_dgemm_tflops_hour);
        for (const Fp64Device& device : node.devices) {
            EXPECT_FALSE(device.gpu);
            EXPECT_FALSE(device.lu_tflops);  // the job's figure, not this rank's
        }
    }
    const auto lines = fp64_lines(capability);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0], "host LU (ScaLAPACK over 4 rank(s), grid 2x2): 0.068 (0.17 of 0.4) TFLOP/s, scaled residual "
                        "0.004, 0.61 of the same ranks' summed DGEMM");
}

TEST(Fp64Capability, ARunWithoutFp64TestsHasNoSection) {
    const LoadedRun run = testing::loaded_run(testing::healthy_traces(2, 1));
    const Observations observations(run);
    const Fp64Capability capability = make_fp64_capability(observations, priced(40.0));
    EXPECT_TRUE(capability.empty());
    EXPECT_TRUE(fp64_table(capability).rows.empty());
    EXPECT_TRUE(fp64_lines(capability).empty());
}

// The names the section reads are the tests' declared metrics: a renamed metric fails here, not
// silently as an empty column.
TEST(Fp64Capability, ReadsOnlyDeclaredMetrics) {
    std::vector<std::string> declared;
    for (const auto& test : Registry::instance().tests())
        for (std::string& name : test->spec().metric_names()) declared.push_back(std::move(name));
    for (std::string_view name : {fp64_metrics::dgemm, fp64_metrics::lu, fp64_metrics::lu_residual, fp64_metrics::cg,
                             fp64_metrics::cg_bound_fraction, fp64_metrics::emulated, fp64_metrics::emulated_error})
        EXPECT_NE(std::find(declared.begin(), declared.end(), name), declared.end()) << name;
}

}  // namespace
}  // namespace shakedown::analysis

namespace shakedown::analysis {
namespace {

// The standard FP64 task: 2 nodes, 3 GPUs at 50, 60 and 50 usable DGEMM TFLOP/s
// with mean powers of 600, 660 and 600 W over their DGEMM phases, 10 per node-hour, 0.3 per kWh.
Fp64Capability three_gpus_on_two_nodes() {
    Fp64Capability capability;
    capability.node_hour_price = 10.0;
    capability.currency = "EUR";
    auto gpu = [](int rank, int index, double tflops) {
        Fp64Device device;
        device.rank = rank;
        device.gpu = index;
        device.dgemm_tflops = Rate{tflops, 67.0};
        return device;
    };
    capability.nodes.push_back({"node0000", {gpu(0, 0, 50.0), gpu(1, 1, 60.0)}, {}, {}, {}, {}});
    capability.nodes.push_back({"node0001", {gpu(2, 0, 50.0)}, {}, {}, {}, {}});
    return capability;
}

EnergyRow dgemm_energy(int rank, std::optional<double> watts) {
    EnergyRow row;
    row.rank = rank;
    row.test = std::string(kernels::dgemm_names::key);
    row.power_w = watts;
    if (!watts) row.not_measured = "the phase lasted 0.35 s, the energy counter needs 1 s";
    return row;
}

TEST(Fp64Task, TimePriceAndEnergyOfTheTaskFromTheMeasuredRatesAndPower) {
    Fp64Capability capability = three_gpus_on_two_nodes();
    AnalysisSettings settings;
    settings.energy_per_kwh = 0.3;
    add_fp64_task(capability, {dgemm_energy(0, 600.0), dgemm_energy(1, 660.0), dgemm_energy(2, 600.0)}, settings);
    ASSERT_TRUE(capability.task);
    const Fp64Task& task = *capability.task;
    EXPECT_EQ(task.gpus, 3);
    EXPECT_EQ(task.nodes, 2);
    EXPECT_DOUBLE_EQ(task.tflops, 160.0);
    EXPECT_NEAR(task.hours, 1e18 / 160e12 / 3600.0, 1e-12);  // 1.736 h
    ASSERT_TRUE(task.price);
    EXPECT_NEAR(*task.price, task.hours * 10.0 * 2, 1e-9);
    ASSERT_TRUE(task.kwh);
    EXPECT_NEAR(*task.kwh, 1e6 * (1860.0 / 160.0) / 3.6e6, 1e-9);  // 10^6 TFLOP at 11.625 J each: 3.229 kWh
    EXPECT_NEAR(*task.energy_price, *task.kwh * 0.3, 1e-12);
    const auto lines = fp64_lines(capability);
    ASSERT_FALSE(lines.empty());
    EXPECT_NE(lines.back().find("an FP64 task of 1e+18 FLOP of DGEMM on these 3 GPU(s) (2 node(s), 160 usable TFLOP/s): 1.74 h"),
              std::string::npos)
        << lines.back();
    EXPECT_NE(lines.back().find("its GPU energy 3.23 kWh"), std::string::npos) << lines.back();
}

TEST(Fp64Task, AGpuWithoutAnEnergyFigureLeavesTheEnergyNotMeasuredAndAFleetWithoutGpuDgemmHasNoTask) {
    Fp64Capability capability = three_gpus_on_two_nodes();
    add_fp64_task(capability, {dgemm_energy(0, 600.0), dgemm_energy(1, std::nullopt), dgemm_energy(2, 600.0)}, {});
    ASSERT_TRUE(capability.task);
    EXPECT_FALSE(capability.task->kwh);
    EXPECT_EQ(capability.task->energy_note, "its energy: not measured on 1 of the 3 GPU(s) (Energy)");
    EXPECT_TRUE(capability.task->price);  // time and price need no energy

    Fp64Capability hosts;
    Fp64Device host;
    host.dgemm_tflops = Rate{1.2, std::nullopt};
    hosts.nodes.push_back({"node0000", {host}, {}, {}, {}, {}});
    add_fp64_task(hosts, {}, {});
    EXPECT_FALSE(hosts.task);
}

}  // namespace
}  // namespace shakedown::analysis
