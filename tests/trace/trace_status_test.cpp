// The root status through a trace's life: running until finish(), complete or aborted, and
// what a crash or an early end leaves behind. A trace is never overwritten.
#include "core/errors.hpp"
#include "trace/trace_reader.hpp"
#include "trace/trace_writer.hpp"
#include "trace_test_support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

namespace shakedown {
namespace {

using namespace std::chrono_literals;
using trace_test::ScratchDir;

TEST(TraceStatusTest, RunningUntilFinishedThenComplete) {
    ScratchDir dir;
    const auto path = dir / "rank-00000.h5";
    TraceWriter writer(path, trace_test::sample_header(0), "", nullptr);
    writer.write_test(trace_test::sample_stream_result());
    const Trace during = read_trace(path);  // readable while the writer holds it open
    EXPECT_EQ(during.status, TraceStatus::running);
    EXPECT_EQ(during.end_utc, 0.0);
    EXPECT_EQ(during.tests.size(), 1u);

    writer.finish(TraceStatus::complete, 1795930800.0);
    const Trace after = read_trace(path);
    EXPECT_EQ(after.status, TraceStatus::complete);
    EXPECT_EQ(after.end_utc, 1795930800.0);
}

TEST(TraceStatusTest, TryAbortRecordsTheEventAndStaysAborted) {
    ScratchDir dir;
    const auto path = dir / "rank-00002.h5";
    TraceWriter writer(path, trace_test::sample_header(2), "", nullptr);
    writer.write_test(trace_test::sample_stream_result());
    const Event timeout{1795930790.0, Severity::error, "watchdog: mpi_pingpong on rank 2 passed its 60 s deadline"};
    // The watchdog calls in from its own thread.
    bool aborted = false;
    std::thread watchdog([&] { aborted = writer.try_abort(timeout, 1795930790.5, 1000ms); });
    watchdog.join();
    EXPECT_TRUE(aborted);

    Trace trace = read_trace(path);
    EXPECT_EQ(trace.status, TraceStatus::aborted);
    EXPECT_EQ(trace.end_utc, 1795930790.5);
    ASSERT_EQ(trace.events.size(), 1u);
    EXPECT_EQ(trace.events[0].text, timeout.text);
    EXPECT_EQ(trace.events[0].severity, Severity::error);
    EXPECT_EQ(trace.tests.size(), 1u);

    // A main thread that carries on and calls finish() does not turn it back to complete.
    writer.finish(TraceStatus::complete, 1795930799.0);
    trace = read_trace(path);
    EXPECT_EQ(trace.status, TraceStatus::aborted);
    EXPECT_EQ(trace.end_utc, 1795930799.0);
}

TEST(TraceStatusTest, TryAbortGivesUpWhileTheWriterIsBusy) {
    ScratchDir dir;
    // A large table keeps write_test busy for a while; retry until the abort attempt lands
    // inside it (a 0 ms wait must then give up and change nothing). A fresh file per
    // attempt: an attempt that was not busy has aborted its trace.
    TestResult big = trace_test::sample_stream_result();
    SampleTable rows({{"a", ""}, {"b", ""}, {"c", ""}, {"d", ""}});
    for (int i = 0; i < 200000; ++i) rows.add_row({1.0 * i, 2.0, 3.0, 4.0});
    big.samples = rows;
    for (int attempt = 0; attempt < 5; ++attempt) {
        const auto path = dir / ("rank-0000" + std::to_string(attempt) + ".h5");
        TraceWriter writer(path, trace_test::sample_header(0), "", nullptr);
        std::atomic<bool> started = false;
        std::thread main_thread([&] {
            started = true;
            writer.write_test(big);
        });
        while (!started) std::this_thread::yield();
        std::this_thread::sleep_for(2ms);
        const bool aborted = writer.try_abort({1.0, Severity::error, "watchdog"}, 2.0, 0ms);
        main_thread.join();
        if (aborted) continue;
        const Trace trace = read_trace(path);
        EXPECT_EQ(trace.status, TraceStatus::running);
        EXPECT_TRUE(trace.events.empty());
        EXPECT_EQ(trace.tests.size(), 1u);
        return;
    }
    GTEST_SKIP() << "could not catch the writer busy on this machine";
}

TEST(TraceStatusTest, WriterGoneWithoutFinishLeavesRunningAndEveryTest) {
    ScratchDir dir;
    const auto path = dir / "rank-00001.h5";
    {
        TraceWriter writer(path, trace_test::sample_header(1), trace_test::sample_config(), nullptr);
        writer.write_test(trace_test::sample_stream_result());
        writer.write_test(trace_test::sample_pingpong_result());
    }
    const Trace trace = read_trace(path);
    EXPECT_EQ(trace.status, TraceStatus::running);
    ASSERT_EQ(trace.tests.size(), 2u);
    EXPECT_EQ(trace.tests[0].key, "host_stream");
    EXPECT_EQ(trace.tests[1].key, "mpi_pingpong");
    EXPECT_EQ(trace.tests[1].samples.size(), 2u);
}

// A crashed rank closes nothing: the process ends while the file is open. Every test that
// write_test() returned from must still read back, and the status must say running.
TEST(TraceStatusTest, CrashedProcessLeavesFinishedTestsReadable) {
    ScratchDir dir;
    const auto path = dir / "rank-00005.h5";
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        try {
            TraceWriter writer(path, trace_test::sample_header(5), trace_test::sample_config(),
                               trace_test::sample_inventory());
            writer.write_test(trace_test::sample_stream_result());
            writer.append_event({1795930766.0, Severity::info, "about to crash"});
            writer.write_test(trace_test::sample_pingpong_result());
            std::_Exit(0);  // no destructors, no atexit: HDF5 never closes the file
        } catch (...) {
            std::_Exit(1);
        }
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0);

    const Trace trace = read_trace(path);
    EXPECT_EQ(trace.status, TraceStatus::running);
    EXPECT_EQ(trace.end_utc, 0.0);
    ASSERT_EQ(trace.tests.size(), 2u);
    EXPECT_EQ(trace.tests[0].metrics.size(), 2u);
    EXPECT_EQ(trace.tests[1].reason, "payload mismatch at byte 17 of 1024 from rank 1");
    ASSERT_EQ(trace.events.size(), 1u);
    EXPECT_EQ(trace.inventory, trace_test::sample_inventory());
}

TEST(TraceStatusTest, RefusesToOverwriteAndLeavesTheFileAlone) {
    ScratchDir dir;
    const auto path = dir / "rank-00000.h5";
    {
        TraceWriter writer(path, trace_test::sample_header(0), "", nullptr);
        writer.write_test(trace_test::sample_stream_result());
        writer.finish(TraceStatus::complete, 1795930800.0);
    }
    const std::string before = trace_test::file_bytes(path);
    try {
        TraceWriter again(path, trace_test::sample_header(0), "", nullptr);
        FAIL() << "an existing trace was opened for writing";
    } catch (const InputError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find(path.string()), std::string::npos) << message;
        EXPECT_NE(message.find("already exists"), std::string::npos) << message;
        EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
    EXPECT_EQ(trace_test::file_bytes(path), before);

    const auto text = dir / "notes.txt";  // any existing file, not only traces
    trace_test::write_bytes(text, "keep me\n");
    EXPECT_THROW(TraceWriter(text, trace_test::sample_header(0), "", nullptr), InputError);
    EXPECT_EQ(trace_test::file_bytes(text), "keep me\n");
}

TEST(TraceStatusTest, UncreatableFileIsAnInputError) {
    ScratchDir dir;
    const auto path = dir / "no-such-folder" / "rank-00000.h5";
    try {
        TraceWriter writer(path, trace_test::sample_header(0), "", nullptr);
        FAIL() << "a trace was created in a folder that does not exist";
    } catch (const InputError& error) {
        EXPECT_NE(std::string(error.what()).find(path.string()), std::string::npos) << error.what();
    }
    EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace shakedown
