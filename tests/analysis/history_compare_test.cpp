// compare (analysis/history/run_comparison.hpp) and the node history (node_history.hpp) on real
// run folders: a later run of the same nodes with one planted slower figure and one risen health
// counter names exactly those, with the right delta; a healthy identical pair names nothing.
#include "analysis/history/comparison_report.hpp"
#include "analysis/history/history_store.hpp"
#include "analysis/history/node_history.hpp"
#include "analysis/history/node_history_report.hpp"
#include "analysis/history/run_comparison.hpp"
#include "analysis_fixtures.hpp"
#include "core/errors.hpp"
#include "history_fixtures.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace shakedown::analysis {
namespace {

using namespace testing;

struct TwoRuns {
    TempDir temp;
    RunRecord healthy = read_run_record(
        write_history_run(temp.path() / "before", {.run_id = "before", .run_uuid = "uuid-before", .start_utc = 1764480000}));
    RunRecord again = read_run_record(
        write_history_run(temp.path() / "again", {.run_id = "again", .run_uuid = "uuid-again", .start_utc = 1764490000}));
    RunRecord planted = read_run_record(write_history_run(
        temp.path() / "after", {.run_id = "after", .run_uuid = "uuid-after", .start_utc = 1764500000, .planted = true}));
};

TEST(CompareRuns, PlantedSlowerFigureAndRisenCounterAreExactlyWhatIsNamed) {
    TwoRuns runs;
    const RunComparison comparison = compare_runs(runs.healthy, runs.planted, 0.10);
    ASSERT_EQ(comparison.count(Change::worse), 1);
    EXPECT_EQ(comparison.count(Change::better), 0);
    EXPECT_EQ(comparison.count(Change::added), 0);
    EXPECT_EQ(comparison.count(Change::missing), 0);
    EXPECT_EQ(comparison.count(Change::same), 8);
    for (const MetricChange& row : comparison.metrics) {
        if (row.change != Change::worse) continue;
        EXPECT_EQ(row.node, planted_node);
        EXPECT_EQ(row.metric, planted_metric);
        EXPECT_EQ(row.unit, "GB/s");
        EXPECT_DOUBLE_EQ(*row.old_value, healthy_triad(1));
        EXPECT_DOUBLE_EQ(*row.new_value, healthy_triad(1) * planted_slowdown);
        EXPECT_NEAR(*row.delta, -healthy_triad(1) * (1 - planted_slowdown), 1e-12);
        EXPECT_NEAR(*row.ratio, planted_slowdown, 1e-12);
    }
    ASSERT_EQ(comparison.counters.size(), 1u);
    const CounterChange& counter = comparison.counters[0];
    EXPECT_EQ(counter.node, planted_node);
    EXPECT_EQ(counter.device, history_gpu_uuid(1));
    EXPECT_EQ(counter.counter, planted_counter);
    EXPECT_EQ(counter.old_last, 2.0);
    EXPECT_EQ(counter.new_last, 2.0 + planted_ecc_rise);
    EXPECT_EQ(counter.rise, planted_ecc_rise);

    const std::string text = comparison_text(comparison);
    EXPECT_NE(text.find("1 worse, 0 better, 8 same (within 10 %), 0 new, 0 missing; 1 counter(s) rose"), std::string::npos)
        << text;
    EXPECT_NE(text.find("node0001 local rank 0 stream.triad_gbs: 7.4 -> 5.92 GB/s  delta -1.48  x0.800"), std::string::npos)
        << text;
    EXPECT_NE(text.find("node0001 GPU-hist-0001 ecc_sbe_volatile: 2 -> 7 (+5)"), std::string::npos) << text;
    const nlohmann::json json = comparison_json(comparison);
    EXPECT_EQ(json["counts"]["worse"], 1);
    EXPECT_EQ(json["metrics"].size(), 9u);
    EXPECT_EQ(json["counters_rose"][0]["rise"], planted_ecc_rise);
    const std::string md = comparison_markdown(comparison);
    EXPECT_NE(md.find("| node0001 local rank 0 | stream.triad\\_gbs | 7.4 | 5.92 | GB/s | -1.48 | x0.800 |"),
              std::string::npos)
        << md;
}

// Two runs in memory, 2 nodes x 2 GPUs: DGEMM measured on each GPU, the collective's bus bandwidth
// that every rank records as the job's, and the slowest rank's number.
RunRecord collective_record(std::string run_id, double busbw, int slowest_rank, double gpu3_tflops,
                            std::string gpu3_uuid = "GPU-3") {
    RunRecord run;
    run.run_id = std::move(run_id);
    for (int rank = 0; rank < 4; ++rank) {
        const std::string node = rank < 2 ? "node1" : "node2";
        const std::string uuid = rank == 3 ? gpu3_uuid : fmt::format("GPU-{}", rank);
        auto value = [&](std::string test, std::string metric, std::string unit, double figure, std::string gpu_uuid) {
            run.values.push_back({.node = node,
                                  .rank = rank,
                                  .local_rank = rank % 2,
                                  .gpu = rank % 2,
                                  .gpu_uuid = std::move(gpu_uuid),
                                  .test = std::move(test),
                                  .metric = std::move(metric),
                                  .unit = std::move(unit),
                                  .value = figure});
        };
        value("dgemm_fp64", "dgemm_fp64.tflops", "TFLOP/s", rank == 3 ? gpu3_tflops : 50.0, uuid);
        value("mpi_coll", "mpi_coll.allreduce_busbw_gbs", "GB/s", busbw, "");
        value("mpi_coll", "mpi_coll.rank_time_ratio", "ratio", 1.0, "");
        if (rank == 0) value("mpi_coll", "mpi_coll.slowest_rank", "rank", slowest_rank, "");
    }
    return run;
}

const MetricChange& only_row(const RunComparison& comparison, Change change) {
    const auto found = std::find_if(comparison.metrics.begin(), comparison.metrics.end(),
                                    [&](const MetricChange& row) { return row.change == change; });
    EXPECT_EQ(comparison.count(change), 1);
    if (found == comparison.metrics.end()) throw std::logic_error("no such row");
    return *found;
}

// As --baseline compares: a job-wide figure once for the run (not 4 rows, one per rank, each
// "worse"), the slowest rank's number never (9 -> 14 is not a regression).
TEST(CompareRuns, AJobWideFigureIsOneRowAndAnIdentifierIsNotCompared) {
    const RunComparison comparison =
        compare_runs(collective_record("old", 20.0, 1, 50.0), collective_record("new", 12.0, 3, 50.0), 0.10);
    const MetricChange& worse = only_row(comparison, Change::worse);
    EXPECT_EQ(worse.as, ComparedAs::job);
    EXPECT_EQ(worse.metric, "mpi_coll.allreduce_busbw_gbs");
    EXPECT_EQ(worse.node, "");
    EXPECT_DOUBLE_EQ(*worse.old_value, 20.0);
    EXPECT_DOUBLE_EQ(*worse.new_value, 12.0);
    for (const MetricChange& row : comparison.metrics) EXPECT_NE(row.metric, "mpi_coll.slowest_rank");
    // 1 job row + 4 GPU rows of DGEMM + 4 rank rows of the rank's own ratio.
    EXPECT_EQ(comparison.metrics.size(), 9u);
    EXPECT_EQ(comparison.metrics.front().as, ComparedAs::job);  // the run's own figures first
    EXPECT_NE(comparison_text(comparison).find("  job mpi_coll.allreduce_busbw_gbs: 20 -> 12 GB/s"), std::string::npos)
        << comparison_text(comparison);
    EXPECT_EQ(comparison_json(comparison)["metrics"][0]["scope"], "job");
}

// A node's median of its GPUs hid one throttled GPU of several ("same"); by UUID it is worse on
// its own row, and a replaced GPU is missing beside its successor.
TEST(CompareRuns, AThrottledGpuIsWorseOnItsOwnRowAndAReplacedOneIsMissingBesideTheNew) {
    const RunComparison throttled =
        compare_runs(collective_record("old", 20.0, 1, 50.0), collective_record("new", 20.0, 1, 30.0), 0.10);
    const MetricChange& worse = only_row(throttled, Change::worse);
    EXPECT_EQ(worse.as, ComparedAs::gpu);
    EXPECT_EQ(worse.gpu_uuid, "GPU-3");
    EXPECT_EQ(worse.node, "node2");
    EXPECT_EQ(where(worse), "node2 GPU GPU-3");
    EXPECT_EQ(throttled.count(Change::same), 8);

    const RunComparison replaced =
        compare_runs(collective_record("old", 20.0, 1, 50.0), collective_record("new", 20.0, 1, 50.0, "GPU-9"), 0.10);
    EXPECT_EQ(only_row(replaced, Change::missing).gpu_uuid, "GPU-3");
    EXPECT_EQ(only_row(replaced, Change::added).gpu_uuid, "GPU-9");
    EXPECT_EQ(replaced.count(Change::worse), 0);
}

// Healthy twin: the same figures again name nothing.
TEST(CompareRuns, TheSameCollectiveRunAgainNamesNothing) {
    const RunComparison same =
        compare_runs(collective_record("old", 20.0, 1, 50.0), collective_record("new", 20.5, 2, 49.0), 0.10);
    EXPECT_EQ(same.count(Change::same), 9);
    EXPECT_EQ(same.metrics.size(), 9u);
}

// The node's PCIe AER totals are counters too: a fatal count that rose is named by the device's
// address; the correctable count that stayed is not.
TEST(CompareRuns, ARisenAerCountIsNamedByItsDevice) {
    TwoRuns runs;
    const RunRecord aer = read_run_record(write_history_run(
        runs.temp.path() / "aer", {.run_id = "aer", .run_uuid = "uuid-aer", .start_utc = 1764510000, .aer_fatal_rise = 2}));
    const RunComparison comparison = compare_runs(runs.healthy, aer, 0.10);
    EXPECT_EQ(comparison.count(Change::worse), 0);
    ASSERT_EQ(comparison.counters.size(), 1u);
    EXPECT_EQ(comparison.counters[0].node, planted_node);
    EXPECT_EQ(comparison.counters[0].device, aer_device);
    EXPECT_EQ(comparison.counters[0].counter, "aer_fatal");
    EXPECT_EQ(comparison.counters[0].old_last, 0.0);
    EXPECT_EQ(comparison.counters[0].rise, 2.0);
}

TEST(CompareRuns, AHealthyIdenticalPairNamesNothing) {
    TwoRuns runs;
    const RunComparison comparison = compare_runs(runs.healthy, runs.again, 0.10);
    EXPECT_EQ(comparison.count(Change::same), 9);
    EXPECT_EQ(comparison.count(Change::worse) + comparison.count(Change::better) + comparison.count(Change::added) +
                  comparison.count(Change::missing),
              0);
    EXPECT_TRUE(comparison.counters.empty());
    const std::string text = comparison_text(comparison);
    EXPECT_EQ(text.find("Worse"), std::string::npos) << text;
    EXPECT_EQ(text.find("Counters that rose"), std::string::npos) << text;
}

// NEW better than OLD; OLD's counter ended higher than NEW's (reset between the runs) and NEW's
// did not rise within the run: better named, no counter.
TEST(CompareRuns, BackwardsTheFigureIsBetterAndAResetCounterDidNotRise) {
    TwoRuns runs;
    const RunComparison comparison = compare_runs(runs.planted, runs.healthy, 0.10);
    EXPECT_EQ(comparison.count(Change::better), 1);
    EXPECT_EQ(comparison.count(Change::worse), 0);
    EXPECT_TRUE(comparison.counters.empty());
    // With a tolerance above the 25 % change, nothing is named.
    EXPECT_EQ(compare_runs(runs.planted, runs.healthy, 0.30).count(Change::better), 0);
}

TEST(CompareRuns, AMetricOrNodeOnlyInOneRunIsNewOrMissing) {
    TwoRuns runs;
    RunRecord fewer = runs.again;
    std::erase_if(fewer.values, [](const MeasuredValue& value) { return value.node == "node0002"; });
    const RunComparison comparison = compare_runs(runs.healthy, fewer, 0.10);
    EXPECT_EQ(comparison.count(Change::missing), 3);
    EXPECT_EQ(compare_runs(fewer, runs.healthy, 0.10).count(Change::added), 3);
}

TEST(NodeHistory, BothRunsBesideTheFleetMedianAndTheRisenCounterNamed) {
    TwoRuns runs;
    HistoryStore store(runs.temp.path() / "history.sqlite", HistoryStore::Access::append);
    store.append(runs.planted, "2026-12-01T00:10:00Z");  // appended out of order: listed by start time
    store.append(runs.healthy, "2026-12-01T00:11:00Z");

    const NodeHistory history = node_history(store, planted_node, std::nullopt);
    ASSERT_EQ(history.runs.size(), 2u);
    EXPECT_EQ(history.runs[0].header.run_id, "before");
    EXPECT_EQ(history.runs[1].header.run_id, "after");
    ASSERT_EQ(history.metrics.size(), 3u);
    const MetricTrend& triad = *std::find_if(history.metrics.begin(), history.metrics.end(),
                                             [](const MetricTrend& trend) { return trend.metric == planted_metric; });
    ASSERT_EQ(triad.points.size(), 2u);
    EXPECT_DOUBLE_EQ(triad.points[0].node, healthy_triad(1));
    EXPECT_DOUBLE_EQ(triad.points[1].node, healthy_triad(1) * planted_slowdown);
    EXPECT_DOUBLE_EQ(triad.points[0].fleet_median, healthy_triad(0));  // median of 7.5, 7.4, 7.6
    EXPECT_DOUBLE_EQ(triad.points[1].fleet_median, healthy_triad(0));  // median of 7.5, 5.92, 7.6
    EXPECT_EQ(triad.points[1].fleet_figures, 3);

    int rose = 0;
    for (const CounterTrend& trend : history.counters) {
        if (trend.total_rise() == 0) continue;
        ++rose;
        EXPECT_EQ(trend.counter, planted_counter);
        EXPECT_EQ(trend.device, history_gpu_uuid(1));
        EXPECT_EQ(trend.total_rise(), planted_ecc_rise);
    }
    EXPECT_EQ(rose, 1);
    const std::string text = node_history_text(history);
    EXPECT_NE(text.find("ROSE GPU-hist-0001 ecc_sbe_volatile: before 2, after 7 (+5 into after)"), std::string::npos)
        << text;
    EXPECT_NE(text.find("stream.triad_gbs [GB/s; higher is better]"), std::string::npos) << text;

    // Another node: nothing rose.
    const NodeHistory quiet = node_history(store, "node0000", std::string(planted_metric));
    EXPECT_EQ(quiet.metrics.size(), 1u);
    for (const CounterTrend& trend : quiet.counters) EXPECT_EQ(trend.total_rise(), 0) << trend.counter;
    EXPECT_EQ(node_history_text(quiet).find("ROSE"), std::string::npos);

    EXPECT_THROW(node_history(store, "node0042", std::nullopt), InputError);
    EXPECT_THROW(node_history(store, planted_node, std::string("no_such.metric")), InputError);
}

// history --node: a figure each GPU measured is that GPU's row, so one throttled GPU of a node is
// not hidden in the node's median (of 2 GPUs here, of 8 on a real node); a replaced GPU's row ends
// and the new one's starts. A job-wide figure stays one row of the node.
TEST(NodeHistory, AThrottledGpuIsItsOwnRowNotHiddenInTheNodeMedian) {
    TempDir temp;
    HistoryStore store(temp.path() / "history.sqlite", HistoryStore::Access::append);
    auto stored = [&](RunRecord run, double start_utc) {
        run.identity = run.run_uuid = "uuid-" + run.run_id;
        run.start_utc = start_utc;
        run.nodes = {{"node1", "pass"}, {"node2", "pass"}};
        store.append(run, "2026-12-07T00:00:00Z");
    };
    stored(collective_record("r1", 100.0, 1, 50.0), 1764480000);
    stored(collective_record("r2", 100.0, 1, 25.0), 1764490000);           // GPU-3 throttled
    stored(collective_record("r3", 100.0, 1, 50.0, "GPU-9"), 1764500000);  // GPU-3 replaced by GPU-9

    const NodeHistory history = node_history(store, "node2", std::nullopt);
    auto trend_of = [&](std::string_view metric, std::string_view gpu) -> const MetricTrend& {
        const auto found = std::find_if(history.metrics.begin(), history.metrics.end(), [&](const MetricTrend& trend) {
            return trend.metric == metric && trend.gpu_uuid == gpu;
        });
        if (found == history.metrics.end()) throw std::logic_error(fmt::format("no row {} {}", metric, gpu));
        return *found;
    };
    const MetricTrend& throttled = trend_of("dgemm_fp64.tflops", "GPU-3");
    ASSERT_EQ(throttled.points.size(), 2u);
    EXPECT_DOUBLE_EQ(throttled.points[0].node, 50.0);
    EXPECT_DOUBLE_EQ(throttled.points[1].node, 25.0);
    EXPECT_DOUBLE_EQ(throttled.points[1].fleet_median, 50.0);  // of 50, 50, 50, 25
    EXPECT_EQ(throttled.points[1].fleet_figures, 4);
    EXPECT_EQ(trend_of("dgemm_fp64.tflops", "GPU-2").points.size(), 3u);
    const MetricTrend& replacement = trend_of("dgemm_fp64.tflops", "GPU-9");
    ASSERT_EQ(replacement.points.size(), 1u);
    EXPECT_EQ(history.runs[replacement.points[0].run].header.run_id, "r3");
    // The job-wide bus bandwidth is one row of the node, not one per GPU.
    EXPECT_EQ(trend_of("mpi_coll.allreduce_busbw_gbs", "").points.size(), 3u);
    EXPECT_EQ(std::count_if(history.metrics.begin(), history.metrics.end(),
                            [](const MetricTrend& trend) { return trend.metric == "mpi_coll.allreduce_busbw_gbs"; }),
              1);

    const std::string text = node_history_text(history);
    EXPECT_NE(text.find("dgemm_fp64.tflops on GPU GPU-3 [TFLOP/s; higher is better]"), std::string::npos) << text;
    EXPECT_NE(text.find("GPU/fleet"), std::string::npos) << text;
    const nlohmann::json json = node_history_json(history);
    EXPECT_TRUE(std::any_of(json["metrics"].begin(), json["metrics"].end(),
                            [](const nlohmann::json& row) { return row["gpu_uuid"] == "GPU-3"; }));
}

}  // namespace
}  // namespace shakedown::analysis
