// Trace writes from several threads with the HDF5 this machine has (Debian's is not
// thread-safe): every writer takes the one process-wide mutex, and two traces written at once
// from two threads (as the sampler, the watchdog and the main thread do) read back whole.
#include "trace/hdf5_threads.hpp"
#include "trace/trace_reader.hpp"
#include "trace/trace_writer.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <random>
#include <thread>

namespace shakedown {
namespace {

namespace fs = std::filesystem;

TEST(Hdf5Threads, DetectionMatchesTheLibrary) {
    hbool_t answer = 0;
    ASSERT_GE(H5is_library_threadsafe(&answer), 0);
    EXPECT_EQ(hdf5::library_is_threadsafe(), answer != 0);
    EXPECT_NE(hdf5::library_description().find(answer != 0 ? ", thread-safe" : "not thread-safe"), std::string::npos);
}

TEST(Hdf5Threads, AWriterWaitsWhileAnotherThreadHoldsTheProcessWideMutex) {
    const auto dir = fs::temp_directory_path() / ("shakedown-hdf5-mutex-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir);
    {
        TraceHeader header;
        header.run_id = "mutex";
        header.world_size = 1;
        TraceWriter writer(dir / "rank-00000.h5", header, "", nullptr);
        // Another thread inside HDF5 (here: holding the writers' mutex) keeps a second writer's
        // abort out until it leaves: the watchdog's bounded wait gives up and touches nothing.
        std::unique_lock held(hdf5::writer_mutex());
        bool aborted = true;
        std::thread watchdog([&] {
            aborted = writer.try_abort(Event{1795930790.0, Severity::error, "deadline"}, 1795930791.0,
                                       std::chrono::milliseconds(50));
        });
        watchdog.join();
        EXPECT_FALSE(aborted);
        held.unlock();
        EXPECT_TRUE(writer.try_abort(Event{1795930790.0, Severity::error, "deadline"}, 1795930791.0,
                                     std::chrono::milliseconds(1000)));
    }
    EXPECT_EQ(read_trace(dir / "rank-00000.h5").status, TraceStatus::aborted);
    fs::remove_all(dir);
}

TEST(Hdf5Threads, TwoTracesWrittenAtOnceFromTwoThreadsReadBackWhole) {
    const auto dir = fs::temp_directory_path() / ("shakedown-hdf5-threads-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir);
    constexpr int events_per_writer = 60;
    {
        TraceHeader header;
        header.shakedown_version = "0.1.0";
        header.run_id = "threads";
        header.world_size = 2;
        header.node = "node001";
        TraceWriter first(dir / "rank-00000.h5", header, "", nullptr);
        header.rank = 1;
        TraceWriter second(dir / "rank-00001.h5", header, "", nullptr);
        auto write = [](TraceWriter& writer, const std::string& who) {
            for (int i = 0; i < events_per_writer; ++i) {
                writer.append_event(Event{1795930790.0 + i, Severity::info, who + " " + std::to_string(i)});
                SampleTable samples({{"t", "s"}, {"value", "W"}});
                samples.add_row({1795930790.0 + i, static_cast<double>(i)});
                writer.append_telemetry("host", samples);
            }
        };
        std::thread other([&] { write(second, "second"); });
        write(first, "first");
        other.join();
        first.finish(TraceStatus::complete, 1795930999.0);
        second.finish(TraceStatus::complete, 1795930999.0);
    }
    for (const auto& [file, who] : {std::pair{"rank-00000.h5", "first"}, std::pair{"rank-00001.h5", "second"}}) {
        const Trace trace = read_trace(dir / file);
        EXPECT_EQ(trace.status, TraceStatus::complete);
        ASSERT_EQ(trace.events.size(), static_cast<std::size_t>(events_per_writer)) << file;
        EXPECT_EQ(trace.events.back().text, std::string(who) + " " + std::to_string(events_per_writer - 1));
        ASSERT_TRUE(trace.telemetry.contains("host")) << file;
        EXPECT_EQ(trace.telemetry.at("host").size(), static_cast<std::size_t>(events_per_writer));
    }
    fs::remove_all(dir);
}

}  // namespace
}  // namespace shakedown
