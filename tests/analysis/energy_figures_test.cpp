// The energy figures (analysis/energy/energy_figures.hpp): a GPU's mean power over a test's timed
// phase from NVML's energy counter, else from its power readings, never from too few readings;
// joules per declared unit and rate per watt beside the nominal per watt; and, over a run folder
// written with the real TraceWriter, the leader's GPU tables read in the same pass as the health
// rules, in one process and in forked readers alike. Hand-made telemetry: known power, known joules.
#include "analysis/energy/energy_figures.hpp"
#include "analysis/load/observations.hpp"
#include "analysis/load/run_loader.hpp"
#include "analysis/report/energy_section.hpp"
#include "analysis/rules/health/leader_trace_rules.hpp"
#include "analysis_fixtures.hpp"
#include "kernels/dgemm/dgemm_fp64_names.hpp"
#include "kernels/lu/lu_fp64_names.hpp"
#include "kernels/train/train_step_names.hpp"
#include "telemetry/telemetry_columns.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace shakedown::analysis {
namespace {

namespace dgemm = kernels::dgemm_names;
namespace train = kernels::train_names;
namespace gpu_columns = telemetry_columns::gpu;

constexpr double t0 = 1795930800.0;

// A GPU table read at `hz` from t0 for `seconds`: `watts(t)` as its power reading, the counter
// rising by it (with_counter), the power limit 700 W.
template <class Power>
SampleTable gpu_table(double seconds, double hz, Power watts, bool with_counter = true) {
    SampleTable table(telemetry_columns::gpu::columns());
    const auto columns = table.columns();
    double joules = 1e6;
    for (int i = 0; i <= static_cast<int>(seconds * hz); ++i) {
        const double t = t0 + i / hz;
        std::vector<double> row(columns.size(), std::nan(""));
        for (std::size_t c = 0; c < columns.size(); ++c) {
            const std::string& name = columns[c].name;
            if (name == telemetry_columns::time) row[c] = t;
            else if (name == gpu_columns::power_w) row[c] = watts(t);
            else if (name == gpu_columns::power_limit_w) row[c] = 700.0;
            else if (name == gpu_columns::energy_j && with_counter) row[c] = joules;
        }
        table.add_row(row);
        joules += watts(t + 0.5 / hz) / hz;  // the mean over the next period
    }
    return table;
}

TestResult dgemm_result(double from, double to, double tflops = 50.0) {
    TestResult test;
    test.key = std::string(dgemm::key);
    test.status = Status::pass;
    test.start_utc = t0;
    test.end_utc = t0 + 10.0;
    test.measured = TimeWindow{t0 + from, t0 + to};
    test.metrics = {testing::declared_metric(dgemm::key, dgemm::tflops, tflops, 67.0)};
    return test;
}

const RankIdentity gpu_rank{.rank = 3, .node = "node0001", .local_rank = 1, .gpu = 1, .gpu_uuid = "", .gpu_name = ""};

TEST(EnergyFigures, TheCounterGivesTheMeanPowerJoulesPerTflopAndPerWatt) {
    const SampleTable table = gpu_table(10.0, 10.0, [](double) { return 500.0; });
    const EnergyRow row = energy_of(gpu_rank, dgemm_result(2.03, 3.07), dgemm::energy, &table);
    ASSERT_TRUE(row.power_w) << row.not_measured;
    EXPECT_EQ(row.source, "energy counter");
    EXPECT_NEAR(*row.power_w, 500.0, 1e-3);  // times are epoch seconds: about 1e-7 s apart in a double
    EXPECT_EQ(row.readings, 10);
    ASSERT_EQ(row.per_unit.size(), 1u);
    EXPECT_EQ(row.per_unit[0].unit, "TFLOP");
    EXPECT_NEAR(row.per_unit[0].joules, 10.0, 1e-4);  // 500 W at 50 TFLOP/s
    EXPECT_NEAR(*row.per_watt, 0.1, 1e-7);
    EXPECT_NEAR(*row.nominal_per_watt, 67.0 / 700.0, 1e-12);
    EXPECT_FALSE(row.power_readings_w);  // 1.04 s: too short for the readings, shown only where they count
    EXPECT_EQ(row.node, "node0001");
    EXPECT_EQ(row.rank, 3);
}

// A host table whose CPU packages' counter (RAPL, mocked: no machine here exposes one) rises at
// `watts`; NaN throughout without one.
SampleTable host_table(double seconds, double hz, double watts, bool with_counter = true) {
    SampleTable table(telemetry_columns::host::columns());
    const auto columns = table.columns();
    for (int i = 0; i <= static_cast<int>(seconds * hz); ++i) {
        std::vector<double> row(columns.size(), std::nan(""));
        for (std::size_t c = 0; c < columns.size(); ++c) {
            if (columns[c].name == telemetry_columns::time) row[c] = t0 + i / hz;
            else if (columns[c].name == telemetry_columns::host::package_energy_j && with_counter) row[c] = watts * i / hz;
        }
        table.add_row(row);
    }
    return table;
}

const RankIdentity host_rank{
    .rank = 2, .node = "node0001", .local_rank = 0, .gpu = std::nullopt, .gpu_uuid = "", .gpu_name = ""};

// Host ranks: the node's packages at 400 W over a 3 s phase, shared by the 4 ranks that ran DGEMM
// there at once, each at 0.5 TFLOP/s: 100 W a rank, 200 J per TFLOP, 0.005 TFLOP/s per W. No
// nominal per watt (no power limit is read for the packages).
TEST(EnergyFigures, HostRanksShareTheirNodesPackageEnergy) {
    const SampleTable table = host_table(10.0, 10.0, 400.0);
    const EnergyRow row = host_energy_of(host_rank, dgemm_result(2.0, 5.0, 0.5), dgemm::energy, &table, 4);
    ASSERT_TRUE(row.power_w) << row.not_measured;
    EXPECT_NEAR(*row.power_w, 100.0, 1e-4);
    EXPECT_EQ(row.source, "CPU packages (RAPL) 400.0 W, shared by 4 rank(s)");
    EXPECT_FALSE(row.gpu);
    ASSERT_EQ(row.per_unit.size(), 1u);
    EXPECT_NEAR(row.per_unit[0].joules, 200.0, 1e-3);
    EXPECT_NEAR(*row.per_watt, 0.005, 1e-9);
    EXPECT_FALSE(row.nominal_per_watt);
    // No RAPL on the node: not measured, with the reason; never a guess.
    const SampleTable none = host_table(10.0, 10.0, 400.0, false);
    const EnergyRow unmeasured = host_energy_of(host_rank, dgemm_result(2.0, 5.0, 0.5), dgemm::energy, &none, 4);
    EXPECT_FALSE(unmeasured.power_w);
    EXPECT_NE(unmeasured.not_measured.find("no CPU package energy reading"), std::string::npos) << unmeasured.not_measured;
    EXPECT_NE(host_energy_of(host_rank, dgemm_result(2.0, 5.0, 0.5), dgemm::energy, nullptr, 4)
                  .not_measured.find("no host telemetry"),
              std::string::npos);
    // A phase too short for the counter, as for a GPU's.
    EXPECT_NE(host_energy_of(host_rank, dgemm_result(2.0, 2.5, 0.5), dgemm::energy, &table, 4)
                  .not_measured.find("the phase lasted 0.50 s"),
              std::string::npos);
}

// A step in power inside the phase: the counter's interpolated ends give the exact mean, and the
// readings over a long phase agree with it.
TEST(EnergyFigures, CounterAndReadingsAgreeOnAPhaseWhosePowerChanges) {
    const auto watts = [](double t) { return t < t0 + 4.0 ? 300.0 : 600.0; };
    const SampleTable table = gpu_table(10.0, 10.0, watts);
    const EnergyRow row = energy_of(gpu_rank, dgemm_result(2.0, 6.0), dgemm::energy, &table);
    ASSERT_TRUE(row.power_w) << row.not_measured;
    EXPECT_NEAR(*row.power_w, 450.0, 1e-3);
    ASSERT_TRUE(row.power_readings_w);
    EXPECT_NEAR(*row.power_readings_w, 450.0, 450.0 * 0.01);
}

TEST(EnergyFigures, WithoutACounterTheReadingsOfALongPhaseGiveJoulesPerMillionTokensAndPerStep) {
    const SampleTable table = gpu_table(10.0, 10.0, [](double) { return 400.0; }, false);
    TestResult test;
    test.key = std::string(train::key);
    test.status = Status::pass;
    test.measured = TimeWindow{t0 + 1.0, t0 + 4.0};
    test.metrics = {testing::declared_metric(train::key, train::tokens_per_s, 100000.0),
                    testing::declared_metric(train::key, train::step_time_s, 0.04),
                    testing::declared_metric(train::key, train::model_tflops, 600.0, 989.0)};
    const EnergyRow row = energy_of(gpu_rank, test, train::energy, &table);
    ASSERT_TRUE(row.power_w) << row.not_measured;
    EXPECT_EQ(row.source, "power readings");
    EXPECT_NEAR(*row.power_w, 400.0, 1e-9);
    ASSERT_EQ(row.per_unit.size(), 2u);
    EXPECT_EQ(row.per_unit[0].unit, "million tokens");
    EXPECT_NEAR(row.per_unit[0].joules, 4000.0, 1e-6);  // 400 W / 100,000 tokens/s x 10^6
    EXPECT_EQ(row.per_unit[1].unit, "step");
    EXPECT_NEAR(row.per_unit[1].joules, 16.0, 1e-9);  // 400 W x 0.04 s
    EXPECT_NEAR(*row.per_watt, 1.5, 1e-12);
    EXPECT_NEAR(*row.nominal_per_watt, 989.0 / 700.0, 1e-12);
}

TEST(EnergyFigures, AnLuSolveCostsTheMeanPowerTimesItsSeconds) {
    namespace lu = kernels::lu_names;
    const SampleTable table = gpu_table(30.0, 10.0, [](double) { return 600.0; });
    TestResult test;
    test.key = std::string(lu::key);
    test.status = Status::pass;
    test.measured = TimeWindow{t0 + 2.0, t0 + 26.0};  // three solves of 8 s
    test.metrics = {testing::declared_metric(lu::key, lu::tflops, 45.0, 67.0),
                    testing::declared_metric(lu::key, lu::solve_s, 8.0)};
    const EnergyRow row = energy_of(gpu_rank, test, lu::energy, &table);
    ASSERT_TRUE(row.power_w) << row.not_measured;
    ASSERT_EQ(row.per_unit.size(), 1u);
    EXPECT_EQ(row.per_unit[0].unit, "LU solve");
    EXPECT_NEAR(row.per_unit[0].joules, 4800.0, 0.01);
    EXPECT_NEAR(*row.per_watt, 45.0 / 600.0, 1e-7);
}

// Too few readings is "not measured" with both reasons, never a figure from the neighbours.
TEST(EnergyFigures, APhaseTooShortForEitherSourceIsNotMeasuredWithBothReasons) {
    const SampleTable table = gpu_table(10.0, 10.0, [](double) { return 500.0; });
    const EnergyRow row = energy_of(gpu_rank, dgemm_result(2.01, 2.19), dgemm::energy, &table);
    EXPECT_FALSE(row.power_w);
    EXPECT_TRUE(row.per_unit.empty());
    EXPECT_NE(row.not_measured.find("the phase lasted 0.18 s, the energy counter needs 1 s"), std::string::npos)
        << row.not_measured;
    EXPECT_NE(row.not_measured.find("power readings need 2 s"), std::string::npos) << row.not_measured;

    const SampleTable no_counter = gpu_table(10.0, 10.0, [](double) { return 500.0; }, false);
    const EnergyRow short_phase = energy_of(gpu_rank, dgemm_result(2.0, 3.5), dgemm::energy, &no_counter);
    EXPECT_FALSE(short_phase.power_w);
    EXPECT_NE(short_phase.not_measured.find("no energy counter reading"), std::string::npos) << short_phase.not_measured;
}

// A telemetry rate too low for the phase: too few readings inside it, however long it is.
TEST(EnergyFigures, TooFewCounterReadingsInsideThePhaseAreNotEnough) {
    const SampleTable table = gpu_table(20.0, 1.0, [](double) { return 500.0; });  // 1 Hz
    const EnergyRow row = energy_of(gpu_rank, dgemm_result(2.5, 4.4), dgemm::energy, &table);
    EXPECT_FALSE(row.power_w);
    EXPECT_NE(row.not_measured.find("2 energy counter reading(s) in the 1.90 s phase (at least 3)"), std::string::npos)
        << row.not_measured;
}

TEST(EnergyFigures, ACounterThatWentBackIsNotUsed) {
    SampleTable table(telemetry_columns::gpu::columns());
    const auto energy = *table.column_index(gpu_columns::energy_j);
    const auto time = *table.column_index(telemetry_columns::time);
    for (int i = 0; i <= 30; ++i) {
        std::vector<double> row(table.columns().size(), std::nan(""));
        row[time] = t0 + i * 0.1;
        row[energy] = i == 15 ? 10.0 : 1e6 + i * 50.0;  // the driver reloaded mid-phase
        table.add_row(row);
    }
    const EnergyRow row = energy_of(gpu_rank, dgemm_result(0.5, 2.5), dgemm::energy, &table);
    EXPECT_FALSE(row.power_w);
    EXPECT_NE(row.not_measured.find("went back"), std::string::npos) << row.not_measured;
}

// A mean above 1.2 times the enforced limit (700 W here) over a second or more is a wrong reading:
// no energy figure, the reason beside it; one at 1.1 times (a GPU's excursions) is a figure.
TEST(EnergyFigures, AMeanPowerFarAboveTheLimitCannotBeTrue) {
    const SampleTable wrong = gpu_table(10.0, 10.0, [](double) { return 900.0; });
    const EnergyRow row = energy_of(gpu_rank, dgemm_result(2.0, 6.0), dgemm::energy, &wrong);
    EXPECT_FALSE(row.power_w);
    EXPECT_TRUE(row.per_unit.empty());
    EXPECT_NE(row.not_measured.find("900 W over the phase cannot be true: 1.29 times the enforced limit of 700 W"),
              std::string::npos)
        << row.not_measured;

    const SampleTable excursion = gpu_table(10.0, 10.0, [](double) { return 770.0; });
    const EnergyRow held = energy_of(gpu_rank, dgemm_result(2.0, 6.0), dgemm::energy, &excursion);
    ASSERT_TRUE(held.power_w) << held.not_measured;
    EXPECT_NEAR(*held.power_w, 770.0, 1e-3);
    EXPECT_TRUE(held.not_measured.empty());
}

TEST(EnergyFigures, NoTimedPhaseNoTableOrAFailedTestIsNotMeasured) {
    const SampleTable table = gpu_table(10.0, 10.0, [](double) { return 500.0; });
    TestResult old = dgemm_result(1.0, 5.0);
    old.measured.reset();
    EXPECT_NE(energy_of(gpu_rank, old, dgemm::energy, &table).not_measured.find("no timed phase"), std::string::npos);
    EXPECT_NE(energy_of(gpu_rank, dgemm_result(1.0, 5.0), dgemm::energy, nullptr).not_measured.find("no telemetry"),
              std::string::npos);
    TestResult failed = dgemm_result(1.0, 5.0);
    failed.fail("dgemm_fp64 produced a wrong product");
    const EnergyRow row = energy_of(gpu_rank, failed, dgemm::energy, &table);
    EXPECT_FALSE(row.power_w);
    EXPECT_NE(row.not_measured.find("did not pass"), std::string::npos);
}

// A run folder: node0000's leader recorded its GPU's table; dgemm_fp64 on both ranks (each bound
// to GPU 0 of its node in run.json), the second rank's phase too short. Read as the analyzer
// reads it, in one process and in two forked readers.
TEST(EnergyFigures, ARunFolderGivesEachGpuRankItsFigureFromTheLeadersTable) {
    testing::TempDir temp;
    auto traces = testing::healthy_traces(2, 2);
    traces[0].telemetry["gpu0"] = gpu_table(10.0, 10.0, [](double) { return 620.0; });
    traces[0].tests.push_back(dgemm_result(1.0, 4.0, 62.0));
    traces[1].tests.push_back(dgemm_result(1.0, 1.1, 62.0));
    const auto dir = testing::write_gpu_run(temp.path() / "run", traces, {"NVIDIA H200", "NVIDIA H200"},
                                            {"stream", "mpi_pingpong", std::string(dgemm::key)});
    const LoadedRun run = load_run(dir, {});
    const Observations observations(run);
    AnalysisSettings settings;
    for (int jobs : {1, 2}) {
        const LeaderTraceFindings found = leader_trace_findings(observations, settings, nullptr, jobs);
        ASSERT_EQ(found.energy.size(), 2u) << jobs;
        ASSERT_TRUE(found.energy[0].power_w) << found.energy[0].not_measured;
        EXPECT_NEAR(*found.energy[0].power_w, 620.0, 1e-3);
        EXPECT_NEAR(found.energy[0].per_unit.at(0).joules, 10.0, 1e-4);
        EXPECT_FALSE(found.energy[1].power_w);
    }
    const auto lines = energy_lines(leader_trace_findings(observations, settings).energy);
    EXPECT_NE(std::find_if(lines.begin(), lines.end(),
                           [](const std::string& line) {
                               return line.find("dgemm_fp64 on 1 GPU(s), median: 10 J per TFLOP; 0.1 TFLOP/s per W, "
                                                "1.04 of the nominal's 0.09571") != std::string::npos;
                           }),
              lines.end());
    EXPECT_NE(std::find_if(lines.begin(), lines.end(),
                           [](const std::string& line) {
                               return line.find("dgemm_fp64: not measured on 1 GPU(s), as on node0000 rank 1 GPU 0: the phase "
                                                "lasted 0.10 s, the energy counter needs 1 s") != std::string::npos;
                           }),
              lines.end());
}

}  // namespace
}  // namespace shakedown::analysis
