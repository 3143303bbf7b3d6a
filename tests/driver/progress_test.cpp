// The heartbeat's pieces without MPI: where a test's expected time comes from, the progress.json
// document, the live and "still running" lines (elapsed times given, never waited for), and the
// file the heartbeat keeps at each event. The running driver is tested in e2e_heartbeat_test.cpp.
#include "core/registry.hpp"
#include "driver/expected_duration.hpp"
#include "driver/heartbeat.hpp"
#include "driver/progress.hpp"
#include "driver/progress_document.hpp"
#include "driver/progress_keys.hpp"

#include "../health/temp_folder.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>

namespace shakedown {
namespace {

namespace key = progress_keys;
using nlohmann::json;

TestParams params_of(const std::string& test, std::map<std::string, ParamValue> given, const std::string& suite) {
    return TestParams(Registry::instance().find(test)->parameters(), std::move(given), suite);
}

TEST(ExpectedDuration, ComesFromTheDeclaredDurationParameterAsResolved) {
    const auto quick = expected_duration("burnin", params_of("burnin", {}, "quick"));
    ASSERT_TRUE(quick.seconds);
    EXPECT_DOUBLE_EQ(*quick.seconds, 60.0);  // the quick suite's preset, not the 600 s default
    EXPECT_EQ(quick.source, "parameter duration_s");
    const auto given = expected_duration("burnin", params_of("burnin", {{"duration_s", 7.0}}, "quick"));
    EXPECT_DOUBLE_EQ(given.seconds.value_or(-1), 7.0);
    EXPECT_DOUBLE_EQ(expected_duration("gpu_memtest", params_of("gpu_memtest", {}, "full")).seconds.value_or(-1), 30.0);
}

TEST(ExpectedDuration, IsUnknownWithoutADeclarationAndNeverTheDeadline) {
    const auto stream = expected_duration("stream", params_of("stream", {}, "quick"));
    EXPECT_FALSE(stream.seconds);
    EXPECT_EQ(stream.source, "unknown");
}

TEST(ExpectedDuration, AnEstimateSaysWhatItRestsOn) {
    constexpr std::array table{DurationDeclaration{.test = "stream", .estimate_s = 12.0, .basis = "a test table"}};
    const auto stream = expected_duration("stream", params_of("stream", {}, "quick"), table);
    EXPECT_DOUBLE_EQ(stream.seconds.value_or(-1), 12.0);
    EXPECT_EQ(stream.source, "estimate: a test table");
    EXPECT_FALSE(expected_duration("burnin", params_of("burnin", {}, "quick"), table).seconds);  // not in that table
}

TEST(ExpectedDuration, EveryDeclarationNamesARegisteredTestAndItsRealParameter) {
    ASSERT_FALSE(duration_declarations().empty());
    for (const auto& row : duration_declarations()) {
        const shakedown::Test* test = Registry::instance().find(row.test);
        ASSERT_NE(test, nullptr) << row.test;
        if (row.parameter.empty()) {
            EXPECT_GT(row.estimate_s, 0.0) << row.test;
            EXPECT_FALSE(row.basis.empty()) << row.test;
            continue;
        }
        const auto& specs = test->parameters();
        const auto spec = std::find_if(specs.begin(), specs.end(), [&](const ParamSpec& p) { return p.name == row.parameter; });
        ASSERT_NE(spec, specs.end()) << row.test << "." << row.parameter;
        EXPECT_EQ(spec->kind, ParamKind::real) << row.test << "." << row.parameter;
    }
}

ProgressRun two_tests() { return {"r1", "uuid-1", "quick", {"stream", "burnin"}, 1.8e9}; }

TEST(ProgressDocument, RunningWithTheCurrentTestAndItsExpectation) {
    ProgressSnapshot snapshot;
    snapshot.finished.push_back({0, "stream", "pass", 1.5});
    snapshot.current = RunningTest{1, "burnin", 1.8e9 + 2, 3.25, {6.0, "parameter duration_s"}};
    snapshot.updated_utc = 1.8e9 + 5.25;
    const json document = progress_json(two_tests(), snapshot);
    EXPECT_EQ(document[key::schema_version], key::version);
    EXPECT_EQ(document[key::run_id], "r1");
    EXPECT_EQ(document[key::run_uuid], "uuid-1");
    EXPECT_EQ(document[key::suite], "quick");
    EXPECT_EQ(document[key::state], "running");
    EXPECT_TRUE(document[key::reason].is_null());
    EXPECT_EQ(document[key::tests], json({"stream", "burnin"}));
    EXPECT_EQ(document[key::tests_total], 2);
    EXPECT_EQ(document[key::tests_done], 1);
    EXPECT_EQ(document[key::updated_utc_iso], "2027-01-15T08:00:05.250Z");
    const json& current = document[key::current];
    EXPECT_EQ(current[key::key], "burnin");
    EXPECT_EQ(current[key::index], 1);
    EXPECT_DOUBLE_EQ(current[key::elapsed_s].get<double>(), 3.25);
    EXPECT_DOUBLE_EQ(current[key::expected_s].get<double>(), 6.0);
    EXPECT_EQ(current[key::expected_from], "parameter duration_s");
    EXPECT_EQ(document[key::finished], json::parse(R"([{"key": "stream", "index": 0, "status": "pass", "seconds": 1.5}])"));
}

TEST(ProgressDocument, UnknownExpectationIsNullAndTheAbortCarriesItsReason) {
    ProgressSnapshot snapshot;
    snapshot.state = RunState::aborted;
    snapshot.reason = "ended by signal 15 (Terminated)";
    snapshot.current = RunningTest{0, "stream", 1.8e9, 1.0, {std::nullopt, "unknown"}};
    ProgressRun named = two_tests();
    named.suite = "";  // the run named its tests
    const json document = progress_json(named, snapshot);
    EXPECT_EQ(document[key::state], "aborted");
    EXPECT_EQ(document[key::reason], "ended by signal 15 (Terminated)");
    EXPECT_TRUE(document[key::suite].is_null());
    EXPECT_TRUE(document[key::current][key::expected_s].is_null());
    EXPECT_EQ(document[key::current][key::expected_from], "unknown");
    snapshot.state = RunState::finished;
    snapshot.current.reset();
    const json finished = progress_json(named, snapshot);
    EXPECT_EQ(finished[key::state], "finished");
    EXPECT_TRUE(finished[key::reason].is_null());  // only an abort has a reason
    EXPECT_TRUE(finished[key::current].is_null());
}

// What Progress writes, read back from a temporary file.
class Captured {
public:
    Captured() : file_(std::tmpfile(), &std::fclose) {}
    std::FILE* get() const { return file_.get(); }
    std::string text() const {
        std::fflush(file_.get());
        std::rewind(file_.get());
        std::string out;
        std::array<char, 4096> buffer{};
        while (const auto got = std::fread(buffer.data(), 1, buffer.size(), file_.get())) out.append(buffer.data(), got);
        return out;
    }

private:
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
};

std::size_t count(const std::string& text, const std::string& word) {
    std::size_t found = 0;
    for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++found;
    return found;
}

const ExpectedDuration six_seconds{6.0, "parameter duration_s"};

TEST(ProgressLine, LineModePrintsOneStillRunningLinePerIntervalPassed) {
    const Captured out;
    Progress progress(true, 9, ProgressStyle::lines, 60.0, out.get());
    progress.started(2, "burnin");
    progress.running(2, "burnin", 0.5, six_seconds);
    progress.running(2, "burnin", 59.9, six_seconds);
    EXPECT_EQ(out.text(), "");  // shorter than the interval: silent, as before
    progress.running(2, "burnin", 60.2, six_seconds);
    progress.running(2, "burnin", 61.0, six_seconds);
    EXPECT_EQ(out.text(), "[3/9] burnin           still running, 60 s of ~6 s\n");
    progress.running(2, "burnin", 185.0, {std::nullopt, "unknown"});  // a late tick: one line, not two
    EXPECT_EQ(count(out.text(), "still running"), 2u);
    EXPECT_NE(out.text().find("still running, 185 s (expected time unknown)\n"), std::string::npos) << out.text();
    progress.started(3, "stream");  // the next test counts its own intervals
    progress.running(3, "stream", 60.5, six_seconds);
    EXPECT_EQ(count(out.text(), "still running"), 3u);
}

TEST(ProgressLine, LiveModeRewritesTheLineInPlace) {
    const Captured out;
    Progress progress(true, 9, ProgressStyle::live, 60.0, out.get());
    progress.started(2, "burnin");
    progress.running(2, "burnin", 120.4, {600.0, "parameter duration_s"});
    EXPECT_EQ(out.text(), "[3/9] burnin           ...\r\033[K[3/9] burnin           120 s of ~600 s");
    progress.finished(2, "burnin", TestOutcome{.worst = Status::pass, .ranks = 2, .seconds = 600.5});
    EXPECT_EQ(count(out.text(), "\n"), 1u);
    EXPECT_NE(out.text().find("\r\033[K[3/9] burnin           pass     600.5 s  (2 ranks)\n"), std::string::npos) << out.text();
}

TEST(ProgressLine, OtherRanksPrintNothing) {
    const Captured out;
    Progress progress(false, 9, ProgressStyle::lines, 1.0, out.get());
    progress.started(0, "burnin");
    progress.running(0, "burnin", 5.0, six_seconds);
    progress.message("hello");
    EXPECT_EQ(out.text(), "");
}

json read_progress(const std::filesystem::path& folder) {
    std::ifstream in(folder / key::file_name);
    return json::parse(in);
}

TEST(Heartbeat, KeepsTheFileAtEveryEventAndEndsFinished) {
    const testing::TempFolder folder("heartbeat");
    const Captured out;
    Progress progress(true, 2, ProgressStyle::lines, 60.0, out.get());
    Heartbeat heartbeat(true, folder.path() / key::file_name, two_tests(), progress);
    EXPECT_EQ(read_progress(folder.path())[key::state], "running");
    EXPECT_TRUE(read_progress(folder.path())[key::current].is_null());
    heartbeat.test_started(0, "stream", {std::nullopt, "unknown"});
    EXPECT_EQ(read_progress(folder.path())[key::current][key::key], "stream");
    heartbeat.test_finished(0, "stream", Status::pass, 1.25);
    heartbeat.test_started(1, "burnin", six_seconds);
    const json running = read_progress(folder.path());
    EXPECT_EQ(running[key::current][key::key], "burnin");
    EXPECT_DOUBLE_EQ(running[key::current][key::expected_s].get<double>(), 6.0);
    EXPECT_EQ(running[key::tests_done], 1);
    heartbeat.test_finished(1, "burnin", Status::fail, 6.5);
    heartbeat.finish();
    heartbeat.abort("too late");  // after the end: nothing changes
    const json finished = read_progress(folder.path());
    EXPECT_EQ(finished[key::state], "finished");
    EXPECT_TRUE(finished[key::reason].is_null());
    ASSERT_EQ(finished[key::finished].size(), 2u);
    EXPECT_EQ(finished[key::finished][1][key::status], "fail");
    EXPECT_EQ(folder.entries(), std::vector<std::string>{key::file_name});  // no temporary file left
}

TEST(Heartbeat, AnAbortIsFinalAndNamesTheReason) {
    const testing::TempFolder folder("heartbeat");
    const Captured out;
    Progress progress(true, 2, ProgressStyle::lines, 60.0, out.get());
    Heartbeat heartbeat(true, folder.path() / key::file_name, two_tests(), progress);
    heartbeat.test_started(0, "stream", {std::nullopt, "unknown"});
    heartbeat.abort("ended by signal 15 (Terminated)");
    heartbeat.test_finished(0, "stream", Status::pass, 1.0);
    heartbeat.finish();
    const json document = read_progress(folder.path());
    EXPECT_EQ(document[key::state], "aborted");
    EXPECT_EQ(document[key::reason], "ended by signal 15 (Terminated)");
    EXPECT_EQ(document[key::current][key::key], "stream");  // where it stood
    EXPECT_EQ(document[key::tests_done], 0);
}

TEST(Heartbeat, LeftWithoutAnEndItSaysAborted) {
    const testing::TempFolder folder("heartbeat");
    const Captured out;
    Progress progress(true, 2, ProgressStyle::lines, 60.0, out.get());
    {
        Heartbeat heartbeat(true, folder.path() / key::file_name, two_tests(), progress);
        heartbeat.test_started(0, "stream", {std::nullopt, "unknown"});
    }
    const json document = read_progress(folder.path());
    EXPECT_EQ(document[key::state], "aborted");
    EXPECT_NE(document[key::reason].get<std::string>().find("before its last test"), std::string::npos);
}

TEST(Heartbeat, DisabledOnOtherRanksWritesNothing) {
    const testing::TempFolder folder("heartbeat");
    const Captured out;
    Progress progress(false, 2, ProgressStyle::lines, 60.0, out.get());
    {
        Heartbeat heartbeat(false, folder.path() / key::file_name, two_tests(), progress);
        heartbeat.test_started(0, "stream", six_seconds);
        heartbeat.finish();
    }
    EXPECT_TRUE(folder.entries().empty());
}

TEST(Heartbeat, AnUnwritableFileDoesNotEndTheRun) {
    const testing::TempFolder folder("heartbeat");
    const Captured out;
    Progress progress(true, 2, ProgressStyle::lines, 60.0, out.get());
    std::filesystem::create_directory(folder.path() / key::file_name);  // a folder in its place: refused
    Heartbeat heartbeat(true, folder.path() / key::file_name, two_tests(), progress);
    EXPECT_NO_THROW(heartbeat.test_started(0, "stream", six_seconds));
    EXPECT_NO_THROW(heartbeat.finish());
    EXPECT_TRUE(std::filesystem::is_directory(folder.path() / key::file_name));  // not replaced
}

}  // namespace
}  // namespace shakedown
