// The analyzer on real run folders: rank files written with TraceWriter, read with read_trace,
// damaged on purpose (missing, cut in half, not HDF5, unfinished, aborted, foreign).
#include "analysis/analyzer.hpp"
#include "analysis/report/summary_json.hpp"
#include "analysis_fixtures.hpp"
#include "analysis_outcome.hpp"
#include "bench/run_folder_writer.hpp"
#include "bench/synthetic_run.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace shakedown::analysis {
namespace {

using testing::healthy_traces;
using testing::metric_named;
using testing::read_text;
using testing::TempDir;
using testing::test_named;
using testing::write_run;

struct Outcome {
    int exit_code = 0;
    std::string out;
    std::string err;
};

Outcome analyze_folder(const std::filesystem::path& run, AnalyzeOptions options = {}) {
    options.run_dir = run;
    std::ostringstream out;
    std::ostringstream err;
    const int code = analyze(options, out, err);
    return {code, out.str(), err.str()};
}

nlohmann::json summary_of(const std::filesystem::path& run) {
    return nlohmann::json::parse(read_text(run / "summary.json"));
}

// Every file's content but the analyzer's outputs, to show that it leaves what it found untouched.
std::map<std::string, std::string> snapshot(const std::filesystem::path& dir) {
    static const std::set<std::string> outputs{"summary.json", "junit.xml", "report.html", "drain.txt"};
    std::map<std::string, std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        if (!outputs.count(entry.path().filename().string()))
            files[entry.path().filename().string()] = read_text(entry.path());
    return files;
}

void cut_in_half(const std::filesystem::path& file) {
    std::filesystem::resize_file(file, std::filesystem::file_size(file) / 2);
}

TEST(RunFolder, HealthyRunPassesAndWritesSummaryLeavingEverythingElseAlone) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(4, 2));
    std::ofstream(run / "notes.txt") << "operator notes\n";
    const auto before = snapshot(run);

    const Outcome outcome = analyze_folder(run);
    EXPECT_EQ(outcome.exit_code, 0) << outcome.out << outcome.err;
    EXPECT_TRUE(outcome.err.empty()) << outcome.err;
    EXPECT_NE(outcome.out.find("Verdict: PASS: 2 node(s): 2 pass"), std::string::npos) << outcome.out;
    EXPECT_NE(outcome.out.find("Run folder: " + run.string()), std::string::npos);
    EXPECT_EQ(snapshot(run), before);

    const auto summary = summary_of(run);
    EXPECT_EQ(summary["schema_version"], summary_schema_version);
    EXPECT_DOUBLE_EQ(summary["started_utc"].get<double>(), 1764480000.0);  // run.json's, as the writer made it
    EXPECT_DOUBLE_EQ(summary["ended_utc"].get<double>(), 1764480000.0 + 600.0);
    EXPECT_EQ(summary["run_id"], testing::test_run_id);
    EXPECT_EQ(summary["verdict"], "pass");
    EXPECT_EQ(summary["exit_code"], 0);
    EXPECT_EQ(summary["counts"]["nodes"]["total"], 2);
    EXPECT_EQ(summary["counts"]["nodes"]["pass"], 2);
    EXPECT_EQ(summary["counts"]["ranks"]["judged"], 4);
    EXPECT_EQ(summary["counts"]["tests"]["passed"], 8);
    ASSERT_EQ(summary["nodes"].size(), 2u);
    EXPECT_EQ(summary["nodes"][1]["node"], "node0001");
    EXPECT_EQ(summary["nodes"][1]["ranks"], nlohmann::json({2, 3}));
    EXPECT_EQ(summary["nodes"][1]["verdict"], "pass");
    EXPECT_TRUE(summary["nodes"][1]["findings"].empty());
    EXPECT_TRUE(summary["incomplete"].empty());
    // No temporary file left behind.
    for (const auto& entry : std::filesystem::directory_iterator(run))
        EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
}

TEST(RunFolder, FailedTestAndSlowMetricAppearInSummaryWithReasons) {
    TempDir temp;
    auto traces = healthy_traces(4, 2);
    test_named(traces[1], "mpi_pingpong").fail("payload mismatch at byte 17");
    metric_named(traces[2], "stream.triad_gbs").value = 4.1;
    const auto run = write_run(temp.path() / "run", traces);

    const Outcome outcome = analyze_folder(run);
    EXPECT_EQ(outcome.exit_code, 1) << outcome.out << outcome.err;
    EXPECT_NE(outcome.out.find("node0000 rank 1 mpi_pingpong: mpi_pingpong failed: payload mismatch at byte 17"),
              std::string::npos)
        << outcome.out;
    EXPECT_NE(outcome.out.find("stream.triad_gbs 4.1 GB/s is 0.52 of nominal 7.9 (fail below 0.60)"), std::string::npos);

    const auto summary = summary_of(run);
    EXPECT_EQ(summary["verdict"], "fail");
    EXPECT_EQ(summary["counts"]["nodes"]["fail"], 2);
    const auto& finding = summary["nodes"][1]["findings"][0];
    EXPECT_EQ(finding["node"], "node0001");
    EXPECT_EQ(finding["rank"], 2);
    EXPECT_EQ(finding["test"], "stream");
    EXPECT_EQ(finding["metric"], "stream.triad_gbs");
    EXPECT_DOUBLE_EQ(finding["value"].get<double>(), 4.1);
    EXPECT_EQ(finding["unit"], "GB/s");
    EXPECT_DOUBLE_EQ(finding["nominal"].get<double>(), 7.9);
    EXPECT_EQ(finding["level"], "fail");
    // The bound in the metric's unit (0.60 of nominal 7.9), the reason code, the cause class.
    EXPECT_NEAR(finding["bound"].get<double>(), 0.6 * 7.9, 1e-9);
    EXPECT_EQ(finding["code"], "below_nominal_fraction");
    EXPECT_EQ(finding["cause"], "hardware");
    const auto& test_finding = summary["nodes"][0]["findings"][0];
    EXPECT_TRUE(test_finding["metric"].is_null());
    EXPECT_TRUE(test_finding["value"].is_null());
    EXPECT_TRUE(test_finding["bound"].is_null());
    EXPECT_EQ(test_finding["code"], "test_failed");
    EXPECT_EQ(test_finding["cause"], "hardware");
    EXPECT_EQ(test_finding["reason"], "mpi_pingpong failed: payload mismatch at byte 17");
}

// An error (a library's, not the node's) carries its own code and cause class; an absolute bound
// comes back as the bound the thresholds file wrote.
TEST(RunFolder, FindingsCarryCodeBoundAndCauseOfEachKind) {
    TempDir temp;
    auto traces = healthy_traces(3, 1);
    TestResult& errored = test_named(traces[0], "mpi_pingpong");
    errored.status = Status::error;
    errored.reason = "MPI_Send returned MPI_ERR_TRUNCATE";
    metric_named(traces[1], "mpi_pingpong.latency_us").value = 2500.0;
    const auto run = write_run(temp.path() / "run", traces);
    const auto thresholds = temp.path() / "latency.yaml";
    std::ofstream(thresholds) << "metrics:\n  mpi_pingpong.latency_us:\n    fail_above: 1000\n";
    AnalyzeOptions options;
    options.run_dir = run;
    options.thresholds_file = thresholds;
    options.write_html = false;
    const auto outcome = testing::analyze_in_process(options);
    ASSERT_FALSE(outcome.summary.is_null()) << outcome.err;

    const auto errors = testing::findings_of(outcome, "node0000");
    ASSERT_EQ(errors.size(), 1u) << outcome.summary.dump(1);
    EXPECT_EQ(errors[0]["code"], "test_errored");
    EXPECT_EQ(errors[0]["cause"], "software");
    EXPECT_TRUE(errors[0]["bound"].is_null());

    const auto slow = testing::findings_of(outcome, "node0001");
    ASSERT_EQ(slow.size(), 1u) << outcome.summary.dump(1);
    EXPECT_EQ(slow[0]["code"], "above_bound");
    EXPECT_DOUBLE_EQ(slow[0]["bound"].get<double>(), 1000.0);
    EXPECT_EQ(slow[0]["cause"], "hardware");

    EXPECT_TRUE(testing::findings_of(outcome, "node0002").empty()) << "the healthy node is not flagged";
}

TEST(RunFolder, MissingRankFileIsIncompleteAndNamed) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(4, 2));
    std::filesystem::remove(run / "rank-00003.h5");
    const Outcome outcome = analyze_folder(run);
    EXPECT_EQ(outcome.exit_code, 3);
    EXPECT_NE(outcome.out.find("rank 3 (node0001): trace missing (rank-00003.h5)"), std::string::npos) << outcome.out;
    const auto summary = summary_of(run);
    EXPECT_EQ(summary["verdict"], "incomplete");
    EXPECT_EQ(summary["nodes"][0]["verdict"], "pass");  // what could be judged still is
    EXPECT_EQ(summary["nodes"][1]["verdict"], "incomplete");
    ASSERT_EQ(summary["incomplete"].size(), 1u);
    EXPECT_EQ(summary["incomplete"][0]["rank"], 3);
    EXPECT_EQ(summary["incomplete"][0]["problem"], "missing");
    EXPECT_EQ(summary["counts"]["ranks"]["judged"], 3);
    EXPECT_EQ(summary["counts"]["ranks"]["incomplete"], 1);
}

TEST(RunFolder, TruncatedRankFileIsIncompleteNotACrash) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(2, 2));
    cut_in_half(run / "rank-00001.h5");
    const auto before = snapshot(run);
    const Outcome outcome = analyze_folder(run);
    EXPECT_EQ(outcome.exit_code, 3) << outcome.out << outcome.err;
    EXPECT_NE(outcome.out.find("rank 1 (node0000): trace truncated or not HDF5: "), std::string::npos) << outcome.out;
    EXPECT_NE(outcome.out.find("rank-00001.h5"), std::string::npos) << outcome.out;
    EXPECT_EQ(snapshot(run), before);
    EXPECT_EQ(summary_of(run)["incomplete"][0]["problem"], "unreadable");
}

TEST(RunFolder, NonHdf5RankFileIsIncomplete) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(2, 2));
    std::ofstream(run / "rank-00000.h5", std::ios::trunc) << "this is not an HDF5 file\n";
    const Outcome outcome = analyze_folder(run);
    EXPECT_EQ(outcome.exit_code, 3);
    EXPECT_NE(outcome.out.find("rank 0 (node0000): trace truncated or not HDF5: "), std::string::npos) << outcome.out;
}

// A run whose run.json has no end yet (the job was killed): summary.json says so with null.
TEST(RunFolder, AnUnfinishedRunHasNoEnd) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(2, 1), "running");
    analyze_folder(run);
    const auto summary = summary_of(run);
    EXPECT_DOUBLE_EQ(summary["started_utc"].get<double>(), 1764480000.0);
    EXPECT_TRUE(summary["ended_utc"].is_null()) << summary["ended_utc"];
}

TEST(RunFolder, RankStillRunningIsIncomplete) {
    TempDir temp;
    auto traces = healthy_traces(2, 2);
    traces[1].status = TraceStatus::running;  // written without finish(): the rank was killed
    const auto run = write_run(temp.path() / "run", traces);
    const Outcome outcome = analyze_folder(run);
    EXPECT_EQ(outcome.exit_code, 3);
    EXPECT_NE(outcome.out.find("rank 1 (node0000): still running"), std::string::npos) << outcome.out;
    const auto summary = summary_of(run);
    EXPECT_EQ(summary["incomplete"][0]["problem"], "running");
    EXPECT_EQ(summary["counts"]["ranks"]["judged"], 2);  // its finished tests are still judged
    EXPECT_EQ(summary["counts"]["ranks"]["incomplete"], 1);
}

TEST(RunFolder, AbortedRankIsNamedWithItsLastEvent) {
    TempDir temp;
    auto traces = healthy_traces(2, 2);
    traces[0].tests.pop_back();
    traces[0].status = TraceStatus::aborted;
    traces[0].events.push_back({1764480100.0, Severity::error, "watchdog: mpi_pingpong passed its 600 s deadline"});
    const auto run = write_run(temp.path() / "run", traces, "aborted");
    const Outcome outcome = analyze_folder(run);
    EXPECT_EQ(outcome.exit_code, 3);
    EXPECT_NE(outcome.out.find("rank 0 (node0000): aborted: watchdog: mpi_pingpong passed its 600 s deadline"),
              std::string::npos)
        << outcome.out;
    EXPECT_NE(outcome.out.find("run.json: status is aborted"), std::string::npos);
}

TEST(RunFolder, TraceOfAnotherRunIsNamed) {
    TempDir temp;
    auto traces = healthy_traces(2, 2);
    traces[1].header.run_id = "some-other-run";
    const auto run = write_run(temp.path() / "run", traces);
    const Outcome outcome = analyze_folder(run);
    EXPECT_EQ(outcome.exit_code, 3);
    EXPECT_NE(outcome.out.find("rank 1 (node0000): rank-00001.h5 belongs to rank 1 of run 'some-other-run'"),
              std::string::npos)
        << outcome.out;
}

TEST(RunFolder, FolderWithoutRunJsonIsBadInput) {
    TempDir temp;
    const Outcome outcome = analyze_folder(temp.path());
    EXPECT_EQ(outcome.exit_code, 2);
    EXPECT_EQ(outcome.err, "shakedown-analyze: " + temp.path().string() +
                               " is not a shakedown run folder: run.json is missing or unreadable\n");
    EXPECT_FALSE(std::filesystem::exists(temp.path() / "summary.json"));
}

TEST(RunFolder, MalformedRunJsonIsBadInput) {
    TempDir temp;
    std::ofstream(temp.path() / "run.json") << "{\"run_id\": \"x\", ";
    EXPECT_EQ(analyze_folder(temp.path()).err,
              "shakedown-analyze: " + temp.path().string() + " is not a shakedown run folder: run.json: not valid JSON\n");
    std::ofstream(temp.path() / "run.json", std::ios::trunc) << R"({"run_id": "x", "world_size": "two"})";
    EXPECT_EQ(analyze_folder(temp.path()).err, "shakedown-analyze: " + temp.path().string() +
                                                   " is not a shakedown run folder: run.json: world_size: expected an integer\n");
    std::ofstream(temp.path() / "run.json", std::ios::trunc)
        << R"({"run_id": "x", "world_size": 1, "status": "complete", "ranks": [{"rank": 0, "node": "n", "trace": "../../etc/passwd"}]})";
    const Outcome outcome = analyze_folder(temp.path());
    EXPECT_EQ(outcome.exit_code, 2);
    EXPECT_NE(outcome.err.find("ranks[0].trace: '../../etc/passwd' is not a path inside the run folder (a '..' component)"), std::string::npos);
}

TEST(RunFolder, BadThresholdsFileIsBadInputBeforeAnyTraceIsRead) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(2, 2));
    const auto thresholds = temp.path() / "site.yaml";
    std::ofstream(thresholds) << "metrics:\n  stream.triad_gbs:\n    fail_belw: 3\n";
    AnalyzeOptions options;
    options.thresholds_file = thresholds;
    const Outcome outcome = analyze_folder(run, options);
    EXPECT_EQ(outcome.exit_code, 2);
    EXPECT_EQ(outcome.err, "shakedown-analyze: " + thresholds.string() +
                               ":3: stream.triad_gbs: unknown key 'fail_belw' (expected fail_below, warn_below, "
                               "fail_above, warn_above, fraction_of_nominal, gpu_fraction_of_nominal, calibrated, fleet_outlier, "
                           "above_nominal)\n");
    EXPECT_FALSE(std::filesystem::exists(run / "summary.json"));
}

TEST(RunFolder, ThresholdsFileChangesTheVerdict) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(2, 2));
    const auto thresholds = temp.path() / "strict.yaml";
    std::ofstream(thresholds) << "metrics:\n  stream.copy_gbs: {fail_below: 7.5}\n";
    AnalyzeOptions options;
    options.thresholds_file = thresholds;
    const Outcome outcome = analyze_folder(run, options);
    EXPECT_EQ(outcome.exit_code, 1);
    EXPECT_NE(outcome.out.find("stream.copy_gbs 7.1 GB/s is below the fail bound 7.5 GB/s"), std::string::npos);
}

TEST(RunFolder, SyntheticRunWithASlowNodeFailsOnlyThatNode) {
    TempDir temp;
    bench::SyntheticRunSpec spec;
    spec.ranks = 8;
    spec.ranks_per_node = 4;
    spec.slow_node = 1;
    spec.sample_rows = 10;
    spec.telemetry_hz = 1.0;
    bench::write_synthetic_run(temp.path() / "run", spec);
    const Outcome outcome = analyze_folder(temp.path() / "run");
    EXPECT_EQ(outcome.exit_code, 1) << outcome.out;
    const auto summary = summary_of(temp.path() / "run");
    EXPECT_EQ(summary["nodes"][0]["verdict"], "pass") << summary["nodes"][0].dump(2);
    EXPECT_EQ(summary["nodes"][1]["verdict"], "fail");
    bool triad_found = false;
    for (const auto& finding : summary["nodes"][1]["findings"])
        triad_found = triad_found || finding["metric"] == "stream.triad_gbs";
    EXPECT_TRUE(triad_found) << summary["nodes"][1].dump(2);
}

}  // namespace
}  // namespace shakedown::analysis
