// The heartbeat end to end: the real driver under mpirun (2 ranks) running stream and a host
// burn-in of a few seconds, while the test reads RUN/progress.json every 50 ms. Every read must
// parse (never half a file); the run must be seen running the burn-in with its elapsed time and
// the expectation from its duration_s, and end finished with every test listed, or aborted with
// the signal when SIGTERM ends it. The lines: "still running" in line mode (interval 1 s), the
// line rewritten in place in live mode, and nothing of either from rank 1.
#include "background_process.hpp"
#include "e2e_support.hpp"
#include "driver/progress_keys.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <optional>
#include <regex>
#include <set>
#include <thread>

namespace shakedown::testing {
namespace {

namespace key = progress_keys;
using nlohmann::json;

std::string heartbeat_config(double burnin_s, const std::string& extra = "") {
    return fmt::format(R"(
params:
  stream: {{array_mib: 4, repetitions: 3}}
  burnin: {{host: true, duration_s: {}, window_s: 1, host_n: 128, telemetry_hz: 5}}
{})",
                       burnin_s, extra);
}

// Watches RUN/progress.json while `run` goes: every version read is parsed, and each read is
// handed to `seen` (which may signal the run). Returns the number of reads.
template <typename Seen>
int watch(BackgroundProcess& run, const std::filesystem::path& file, Seen seen) {
    int reads = 0;
    while (run.running()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (!std::filesystem::exists(file)) continue;
        const json document = read_json(file);  // throws, failing the test, on half a file
        ++reads;
        seen(document);
    }
    return reads;
}

bool is_burnin_running(const json& document) {
    return document[key::state] == key::running && document[key::current].is_object() &&
           document[key::current][key::key] == "burnin";
}

std::vector<std::string> leftover_temporary_files(const std::filesystem::path& folder) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(folder))
        if (entry.path().filename().string().find(".tmp-") != std::string::npos) names.push_back(entry.path().filename());
    return names;
}

TEST(EndToEndHeartbeat, ProgressJsonShowsTheRunningTestThenEveryFinishedOne) {
    const ScratchFolder scratch("heartbeat");
    const auto config = scratch.write("c.yaml", heartbeat_config(6, "progress: {still_running_interval_s: 1}\n"));
    const auto folder = scratch.path() / "r1";
    BackgroundProcess run(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "stream,burnin", "--config", config.string(),
                                     "--out", scratch.path().string(), "--name", "r1", "--progress", "lines"}),
                          scratch.path() / "output.txt");
    std::optional<json> seen_running;
    std::set<std::string> states;
    const int reads = watch(run, folder / key::file_name, [&](const json& document) {
        states.insert(document[key::state].get<std::string>());
        if (is_burnin_running(document) && document[key::current][key::elapsed_s].get<double>() > 0) seen_running = document;
    });
    ASSERT_EQ(run.wait(), 0) << run.output();
    EXPECT_GT(reads, 5);
    EXPECT_TRUE(states.contains("running"));
    ASSERT_TRUE(seen_running) << "never saw the burn-in running with time elapsed";
    const json& current = (*seen_running)[key::current];
    EXPECT_EQ(current[key::index], 1);
    EXPECT_DOUBLE_EQ(current[key::expected_s].get<double>(), 6.0);
    EXPECT_EQ(current[key::expected_from], "parameter duration_s");
    EXPECT_EQ((*seen_running)[key::tests_done], 1);
    EXPECT_EQ((*seen_running)[key::run_id], "r1");

    const json final = read_json(folder / key::file_name);
    EXPECT_EQ(final[key::state], key::finished_state);
    EXPECT_TRUE(final[key::current].is_null());
    EXPECT_EQ(final[key::tests_total], 2);
    EXPECT_EQ(final[key::tests_done], 2);
    ASSERT_EQ(final[key::finished].size(), 2u);
    for (std::size_t index = 0; index < 2; ++index) {
        const json& test = final[key::finished][index];
        EXPECT_EQ(test[key::key], (std::array{"stream", "burnin"}[index]));
        EXPECT_EQ(test[key::index], index);
        // A burn-in beside other work on a shared machine may be judged slow: any verdict but an error.
        EXPECT_TRUE(test[key::status] == "pass" || test[key::status] == "fail") << test;
        EXPECT_GT(test[key::seconds].get<double>(), 0.0);
    }
    EXPECT_GE(final[key::finished][1][key::seconds].get<double>(), 6.0);
    EXPECT_EQ(read_json(folder / "run.json")["run_uuid"], final[key::run_uuid]);
    EXPECT_TRUE(leftover_temporary_files(folder).empty());

    // Line mode: a "still running" line per second of the 6 s burn-in, from rank 0 only (two
    // ranks would print each second twice); none for the short stream test.
    const std::string output = run.output();
    const std::regex still(R"(\[2/2\] burnin +still running, (\d+) s of ~6 s\n)");
    std::multiset<int> seconds;
    for (auto it = std::sregex_iterator(output.begin(), output.end(), still); it != std::sregex_iterator(); ++it)
        seconds.insert(std::stoi((*it)[1]));
    EXPECT_GE(seconds.size(), 4u) << output;
    EXPECT_EQ(std::set<int>(seconds.begin(), seconds.end()).size(), seconds.size()) << output;
    EXPECT_EQ(output.find("[1/2] stream           still running"), std::string::npos) << output;
    EXPECT_EQ(output.find('\r'), std::string::npos) << "no in-place rewriting in line mode";
}

TEST(EndToEndHeartbeat, LiveLineIsRewrittenInPlaceAndTheDefaultIntervalPrintsNoStillRunningLine) {
    const ScratchFolder scratch("heartbeat-live");
    const auto config = scratch.write("c.yaml", heartbeat_config(3));
    const auto run = run_process(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "stream,burnin", "--config",
                                            config.string(), "--out", scratch.path().string(), "--name", "r1",
                                            "--progress", "live"}));
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("\r\033[K[2/2] burnin           1 s of ~3 s"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("\r\033[K[2/2] burnin           pass"), std::string::npos) << run.output;
    EXPECT_EQ(run.output.find("still running"), std::string::npos) << run.output;  // 3 s < the default 60 s
    EXPECT_EQ(read_json(scratch.path() / "r1" / key::file_name)[key::state], key::finished_state);
}

TEST(EndToEndHeartbeat, ASigtermedRunLeavesItAbortedWithTheSignalAndNeverHalfAFile) {
    const ScratchFolder scratch("heartbeat-term");
    const auto config = scratch.write("c.yaml", heartbeat_config(60));
    const auto folder = scratch.path() / "r1";
    BackgroundProcess run(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "stream,burnin", "--config", config.string(),
                                     "--out", scratch.path().string(), "--name", "r1", "--progress", "lines"}),
                          scratch.path() / "output.txt");
    bool signalled = false;
    watch(run, folder / key::file_name, [&](const json& document) {
        if (!signalled && is_burnin_running(document) && document[key::current][key::elapsed_s].get<double>() > 1.0) {
            run.signal(SIGTERM);  // as scancel or the job script's time-limit trap does
            signalled = true;
        }
    });
    const int code = run.wait();
    ASSERT_TRUE(signalled) << run.output();
    EXPECT_NE(code, 0) << run.output();
    const json final = read_json(folder / key::file_name);
    EXPECT_EQ(final[key::state], key::aborted) << final.dump(2) << run.output();
    EXPECT_NE(final[key::reason].get<std::string>().find("signal 15"), std::string::npos) << final[key::reason];
    ASSERT_TRUE(final[key::current].is_object());
    EXPECT_EQ(final[key::current][key::key], "burnin");
    EXPECT_GT(final[key::current][key::elapsed_s].get<double>(), 1.0);
    EXPECT_LT(final[key::current][key::elapsed_s].get<double>(), 60.0);
    EXPECT_EQ(final[key::tests_done], 1);
    EXPECT_EQ(read_json(folder / "run.json")["status"], "aborted");  // run.json says so too
    EXPECT_TRUE(leftover_temporary_files(folder).empty());
}

TEST(EndToEndHeartbeat, AWatchdogExpiryLeavesItAbortedWithTheWatchdogsLine) {
    const ScratchFolder scratch("heartbeat-watchdog");
    const auto config = scratch.write("c.yaml", heartbeat_config(60, "watchdog: {deadlines: {burnin: 2}, grace_s: 2}\n"));
    const auto run = run_process(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "stream,burnin", "--config",
                                            config.string(), "--out", scratch.path().string(), "--name", "r1",
                                            "--progress", "lines"}));
    EXPECT_NE(run.exit_code, 0) << run.output;
    const json final = read_json(scratch.path() / "r1" / key::file_name);
    EXPECT_EQ(final[key::state], key::aborted) << final.dump(2) << run.output;
    EXPECT_NE(final[key::reason].get<std::string>().find("watchdog: test 'burnin' passed its 2 s deadline"),
              std::string::npos) << final[key::reason];
    EXPECT_EQ(final[key::current][key::key], "burnin");
    EXPECT_EQ(final[key::tests_done], 1);
}

}  // namespace
}  // namespace shakedown::testing
