// Loading with reader processes (--jobs): the forked workers, the codec that hands a rank's
// record back, and the whole analysis giving the same outputs with 1 and with 2 jobs on a run
// with faults and damaged traces; --jobs below 1 refused with one line.
#include "analysis/load/forked_workers.hpp"
#include "analysis/load/rank_codec.hpp"
#include "analysis/load/run_loader.hpp"
#include "analysis_fixtures.hpp"
#include "bench/synthetic_run.hpp"
#include "trace/run_manifest.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace shakedown::analysis {
namespace {

using testing::read_text;
using testing::TempDir;

struct CommandResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

CommandResult run_analyzer(const TempDir& temp, const std::string& arguments) {
    const auto out = temp.path() / "stdout.txt";
    const auto err = temp.path() / "stderr.txt";
    const std::string command =
        std::string("'") + SHAKEDOWN_ANALYZE_EXE + "' " + arguments + " >'" + out.string() + "' 2>'" + err.string() + "'";
    const int status = std::system(command.c_str());
    CommandResult result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = read_text(out);
    result.err = read_text(err);
    return result;
}

std::vector<std::uint8_t> bytes_of(std::string_view text) { return {text.begin(), text.end()}; }

// --- forked workers ------------------------------------------------------------------------

TEST(ForkedWorkers, EveryItemIsTakenOnceWithItsOwnResult) {
    std::map<std::size_t, std::string> taken;
    std::vector<std::size_t> lost;
    run_forked({.count = 200,
                .jobs = 3,
                .work = [](std::size_t index) { return bytes_of("item " + std::to_string(index * index)); },
                .take =
                    [&](std::size_t index, std::span<const std::uint8_t> result) {
                        EXPECT_TRUE(taken.emplace(index, std::string(result.begin(), result.end())).second) << index;
                    },
                .lost = [&](std::size_t index, const std::string&) { lost.push_back(index); }});
    ASSERT_EQ(taken.size(), 200u);
    for (const auto& [index, text] : taken) EXPECT_EQ(text, "item " + std::to_string(index * index));
    EXPECT_TRUE(lost.empty());
}

TEST(ForkedWorkers, ResultsComeFromOtherProcesses) {
    std::set<std::string> pids;
    run_forked({.count = 40,
                .jobs = 2,
                .work = [](std::size_t) { return bytes_of(std::to_string(getpid())); },
                .take = [&](std::size_t, std::span<const std::uint8_t> result) { pids.emplace(result.begin(), result.end()); },
                .lost = [](std::size_t, const std::string&) {}});
    EXPECT_FALSE(pids.contains(std::to_string(getpid())));
    EXPECT_GE(pids.size(), 1u);
}

TEST(ForkedWorkers, OneJobRunsInThisProcess) {
    std::set<std::string> pids;
    run_forked({.count = 5,
                .jobs = 1,
                .work = [](std::size_t) { return bytes_of(std::to_string(getpid())); },
                .take = [&](std::size_t, std::span<const std::uint8_t> result) { pids.emplace(result.begin(), result.end()); },
                .lost = [](std::size_t, const std::string&) {}});
    EXPECT_EQ(pids, std::set<std::string>{std::to_string(getpid())});
}

TEST(ForkedWorkers, AWorkerThatDiesLosesOnlyTheItemItWasOn) {
    std::set<std::size_t> taken;
    std::map<std::size_t, std::string> lost;
    run_forked({.count = 60,
                .jobs = 2,
                .work =
                    [](std::size_t index) {
                        if (index == 17 || index == 42) raise(SIGKILL);  // as HDF5 crashing on one file
                        if (index == 30) throw std::runtime_error("bad item 30");
                        return bytes_of("ok");
                    },
                .take = [&](std::size_t index, std::span<const std::uint8_t>) { taken.insert(index); },
                .lost = [&](std::size_t index, const std::string& why) { lost.emplace(index, why); }});
    EXPECT_EQ(taken.size(), 57u);
    ASSERT_EQ(lost.size(), 3u);
    EXPECT_NE(lost[17].find("died of signal 9 (SIGKILL)"), std::string::npos) << lost[17];
    EXPECT_NE(lost[42].find("died of signal 9"), std::string::npos) << lost[42];
    EXPECT_EQ(lost[30], "bad item 30");
    for (std::size_t index : {17u, 30u, 42u}) EXPECT_FALSE(taken.contains(index));
}

// --- the codec -------------------------------------------------------------------------------

TEST(RankCodec, EveryMemberOfARanksReadSurvivesTheTrip) {
    bench::SyntheticRunSpec spec;
    spec.ranks = 8;
    spec.ranks_per_node = 4;
    spec.sample_rows = 3;
    spec.telemetry_hz = 1.0;
    RankRecord record;
    record.node = "node0001";
    record.local_rank = 0;
    record.problem = RankProblem::aborted;
    record.problem_text = "rank 4 (node0001): aborted: watchdog";
    record.trace = bench::make_synthetic_trace(spec, 4);
    Trace& trace = *record.trace;
    trace.header.binding.cuda_visible_devices = "0,1";
    trace.header.binding.slurm["SLURM_JOB_ID"] = "77";
    trace.tests.front().metrics.front().value = std::numeric_limits<double>::quiet_NaN();
    trace.tests.front().metrics.back().nominal.reset();
    trace.tests.front().cause = Cause::configuration;
    trace.tests.front().bad_input = true;
    trace.stalled = StalledAt{{"p2p", "round 3", {1, 2}}, stalled_by_watchdog, 2.5};
    trace.status = TraceStatus::aborted;

    const std::vector<std::uint8_t> bytes = encode_rank_read(record);
    RankRecord decoded;
    decode_rank_read(bytes, decoded);
    EXPECT_EQ(encode_rank_read(decoded), bytes);
    ASSERT_TRUE(decoded.trace);
    EXPECT_EQ(decoded.node, "node0001");
    EXPECT_EQ(decoded.problem, RankProblem::aborted);
    EXPECT_EQ(decoded.problem_text, record.problem_text);
    const Trace& back = *decoded.trace;
    EXPECT_EQ(back.header.rank, 4);
    EXPECT_EQ(back.header.node, trace.header.node);
    EXPECT_EQ(back.header.binding.cuda_visible_devices, std::optional<std::string>("0,1"));
    EXPECT_EQ(back.header.binding.slurm.at("SLURM_JOB_ID"), "77");
    EXPECT_EQ(back.status, TraceStatus::aborted);
    EXPECT_EQ(back.inventory, trace.inventory);
    ASSERT_EQ(back.tests.size(), trace.tests.size());
    EXPECT_TRUE(std::isnan(back.tests.front().metrics.front().value));
    EXPECT_FALSE(back.tests.front().metrics.back().nominal);
    EXPECT_EQ(back.tests.front().cause, std::optional<Cause>(Cause::configuration));
    EXPECT_TRUE(back.tests.front().bad_input);
    const Metric& metric = trace.tests.back().metrics.back();
    const Metric& metric_back = back.tests.back().metrics.back();
    EXPECT_EQ(metric_back.name, metric.name);
    EXPECT_EQ(metric_back.unit, metric.unit);
    EXPECT_EQ(metric_back.value, metric.value);  // bit for bit: the value itself, not a rounding
    EXPECT_EQ(metric_back.nominal, metric.nominal);
    EXPECT_EQ(metric_back.better, metric.better);
    EXPECT_EQ(back.tests.back().samples.rows(), trace.tests.back().samples.rows());
    EXPECT_EQ(back.tests.back().parameters, trace.tests.back().parameters);
    ASSERT_EQ(back.telemetry.size(), trace.telemetry.size());
    EXPECT_EQ(back.telemetry.at("host").rows(), trace.telemetry.at("host").rows());
    EXPECT_EQ(back.telemetry_attributes, trace.telemetry_attributes);
    ASSERT_EQ(back.events.size(), trace.events.size());
    EXPECT_EQ(back.events.back().text, trace.events.back().text);
    ASSERT_TRUE(back.stalled);
    EXPECT_EQ(back.stalled->activity.waiting_for, (std::vector<int>{1, 2}));
    EXPECT_EQ(back.stalled->late_s, 2.5);
}

TEST(RankCodec, ARecordWithoutATraceAndMalformedBytes) {
    RankRecord record;
    record.problem = RankProblem::missing;
    record.problem_text = "rank 3: trace missing";
    RankRecord decoded;
    decoded.trace = Trace{};
    decode_rank_read(encode_rank_read(record), decoded);
    EXPECT_FALSE(decoded.trace);
    EXPECT_EQ(decoded.problem, RankProblem::missing);
    const std::vector<std::uint8_t> junk = {0x93, 0x01};
    EXPECT_THROW(decode_rank_read(junk, decoded), std::runtime_error);
}

// --- the loader and the analysis ---------------------------------------------------------------

// A run with what the analysis must find: a slow node, a power-capped GPU.
std::filesystem::path synthetic_run(const std::filesystem::path& dir, int jobs) {
    bench::SyntheticRunSpec spec;
    spec.ranks = 24;
    spec.ranks_per_node = 4;
    spec.sample_rows = 5;
    spec.telemetry_hz = 1.0;
    spec.slow_node = 3;
    spec.throttled_gpu = bench::SyntheticRunSpec::ThrottledGpu{5, 2};
    bench::write_synthetic_run(dir, spec, jobs);
    return dir;
}

// The same with what the loader must record: a missing, a truncated and a foreign trace.
std::filesystem::path faulty_run(const std::filesystem::path& dir, int jobs) {
    synthetic_run(dir, jobs);
    std::filesystem::remove(dir / trace_relative_path(7));
    std::filesystem::resize_file(dir / trace_relative_path(9), 2000);
    std::filesystem::copy_file(dir / trace_relative_path(1), dir / trace_relative_path(10),
                               std::filesystem::copy_options::overwrite_existing);
    return dir;
}

void expect_same_load(const LoadedRun& one, const LoadedRun& other) {
    ASSERT_EQ(one.ranks.size(), other.ranks.size());
    for (std::size_t i = 0; i < one.ranks.size(); ++i) {
        EXPECT_EQ(one.ranks[i].problem, other.ranks[i].problem) << i;
        EXPECT_EQ(one.ranks[i].problem_text, other.ranks[i].problem_text) << i;
        EXPECT_EQ(encode_rank_read(one.ranks[i]), encode_rank_read(other.ranks[i])) << i;
    }
    EXPECT_EQ(one.run_problems, other.run_problems);
}

TEST(ParallelLoad, ReaderProcessesLoadWhatOneProcessLoads) {
    TempDir temp;
    const auto run = faulty_run(temp.path() / "run", 1);
    const LoadedRun here = load_run(run, {.inventory = true, .jobs = 1});
    const LoadedRun forked = load_run(run, {.inventory = true, .jobs = 3});
    expect_same_load(here, forked);
    EXPECT_EQ(forked.ranks[7].problem, RankProblem::missing);
    EXPECT_EQ(forked.ranks[9].problem, RankProblem::unreadable);
    EXPECT_EQ(forked.ranks[10].problem, RankProblem::foreign);
    EXPECT_EQ(forked.ranks[11].problem, RankProblem::none);
    ASSERT_TRUE(forked.ranks[11].trace);
    EXPECT_FALSE(forked.ranks[11].trace->inventory.is_null());
}

TEST(ParallelLoad, WriterProcessesWriteWhatOneProcessWrites) {
    TempDir temp;
    const auto one = synthetic_run(temp.path() / "one", 1);
    const auto three = synthetic_run(temp.path() / "three", 3);
    EXPECT_EQ(read_text(one / "run.json"), read_text(three / "run.json"));
    expect_same_load(load_run(one, {.jobs = 1}), load_run(three, {.jobs = 1}));
}

// Everything summary.json holds but the time of the analysis.
std::string without_analysis_time(const std::string& summary) {
    std::istringstream lines(summary);
    std::string kept;
    for (std::string line; std::getline(lines, line);)
        if (line.find("\"analyzed_utc\"") == std::string::npos) kept += line + '\n';
    return kept;
}

TEST(ParallelLoad, OneAndTwoJobsWriteTheSameOutputs) {
    TempDir temp;
    const auto run = faulty_run(temp.path() / "run", 2);
    std::map<int, std::map<std::string, std::string>> outputs;
    for (int jobs : {1, 2}) {
        const CommandResult result = run_analyzer(temp, run.string() + " --quiet --jobs " + std::to_string(jobs));
        EXPECT_EQ(result.exit_code, 3) << result.out << result.err;  // incomplete: three damaged ranks
        for (const char* file : {"summary.json", "drain.txt", "junit.xml"}) outputs[jobs][file] = read_text(run / file);
        outputs[jobs]["stdout"] = result.out;
    }
    const std::string& summary = outputs[1]["summary.json"];
    ASSERT_NE(summary.find("\"analyzed_utc\""), std::string::npos);
    EXPECT_NE(summary.find("node0003"), std::string::npos);  // the slow node was judged
    EXPECT_NE(summary.find("rank-00009.h5"), std::string::npos);  // the truncated trace was named
    EXPECT_EQ(without_analysis_time(outputs[2]["summary.json"]), without_analysis_time(summary));
    EXPECT_EQ(outputs[2]["drain.txt"], outputs[1]["drain.txt"]);
    EXPECT_NE(summary.find("node0005"), std::string::npos);  // the power-capped GPU's node
    EXPECT_EQ(outputs[2]["stdout"], outputs[1]["stdout"]);
}

TEST(ParallelLoad, JobsBelowOneAreBadInputAndWriteNothing) {
    TempDir temp;
    bench::SyntheticRunSpec spec;
    spec.ranks = 2;
    spec.ranks_per_node = 2;
    const auto run = temp.path() / "run";
    bench::write_synthetic_run(run, spec);
    for (const std::string jobs : {"0", "-1", "-4"}) {
        const CommandResult result = run_analyzer(temp, run.string() + " --jobs=" + jobs);
        EXPECT_EQ(result.exit_code, 2) << jobs;
        EXPECT_EQ(result.err, "shakedown-analyze: --jobs must be 1 or more (reader processes), got " + jobs + "\n");
        EXPECT_FALSE(std::filesystem::exists(run / "summary.json"));
    }
    const CommandResult word = run_analyzer(temp, run.string() + " --jobs two");
    EXPECT_EQ(word.exit_code, 2);
    EXPECT_FALSE(std::filesystem::exists(run / "summary.json"));
    // The healthy case: the same run with --jobs 2 is judged.
    EXPECT_EQ(run_analyzer(temp, run.string() + " --quiet --jobs 2").exit_code, 0);
    EXPECT_TRUE(std::filesystem::exists(run / "summary.json"));
}

// The generator's bad input: one line, exit 2, no folder written.
TEST(SyntheticRunCli, RankCountsItCannotHoldAndJobsBelowOneExitTwo) {
    TempDir temp;
    const auto err = temp.path() / "stderr.txt";
    auto generate = [&](const std::string& arguments) {
        const std::string command = std::string("'") + SHAKEDOWN_SYNTHETIC_RUN_EXE + "' '" + (temp.path() / "run").string() +
                                    "' " + arguments + " >/dev/null 2>'" + err.string() + "'";
        const int status = std::system(command.c_str());
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    };
    EXPECT_EQ(generate("--ranks 1048577"), 2);
    EXPECT_EQ(read_text(err), "shakedown-synthetic-run: --ranks 1048577 is more than a run can hold (1048576)\n");
    EXPECT_FALSE(std::filesystem::exists(temp.path() / "run"));
    EXPECT_EQ(generate("--ranks 8 --jobs 0"), 2);
    EXPECT_EQ(read_text(err), "shakedown-synthetic-run: --jobs must be 1 or more (writer processes), got 0\n");
    EXPECT_FALSE(std::filesystem::exists(temp.path() / "run"));
    EXPECT_EQ(generate("--ranks 8 --jobs 2"), 0);  // the healthy case
    EXPECT_TRUE(std::filesystem::exists(temp.path() / "run" / "run.json"));
}

}  // namespace
}  // namespace shakedown::analysis
