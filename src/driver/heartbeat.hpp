// The heartbeat of a run on rank 0: RUN/progress.json kept current while the run goes (written
// at every test start and end, and every `file_interval_s` while a test runs) and the live or
// "still running" line redrawn through Progress. One thread of its own; disabled (no thread, no
// file) on every other rank. The file is written whole (a temporary file in the run folder,
// fsync, rename: core/output_file), so a reader polling it never sees half of one.
//
// The last state is "finished" (finish()), or "aborted" with the reason (abort(): the watchdog's
// expiry, a termination signal; or the destructor when the run ended by an exception).
#pragma once

#include "driver/progress.hpp"
#include "driver/progress_document.hpp"

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>

namespace shakedown {

class Heartbeat {
public:
    Heartbeat(bool enabled, std::filesystem::path file, ProgressRun run, Progress& progress, double file_interval_s = 2.0);
    ~Heartbeat();
    Heartbeat(const Heartbeat&) = delete;
    Heartbeat& operator=(const Heartbeat&) = delete;

    void test_started(std::size_t index, const std::string& key, ExpectedDuration expected);
    void test_finished(std::size_t index, const std::string& key, Status worst, double seconds);
    void finish();
    // From any thread, also while the process is about to end: waits a bounded time for a write
    // in progress, then writes the final state; nothing is written after it.
    void abort(const std::string& reason);

private:
    void beat();
    void write_locked();
    void end_locked(RunState state, const std::string& reason);

    const bool enabled_;
    const std::filesystem::path file_;
    const ProgressRun run_;
    Progress& progress_;
    const std::chrono::duration<double> file_interval_;

    std::timed_mutex mutex_;  // timed: abort() must not wait forever behind a wedged file system
    std::condition_variable_any changed_;
    ProgressSnapshot snapshot_;
    std::chrono::steady_clock::time_point test_started_at_;
    std::chrono::steady_clock::time_point written_at_;
    bool ended_ = false;
    bool stopping_ = false;
    bool write_failed_ = false;  // said once; the run goes on without the file
    std::thread thread_;         // last: starts after every member above exists
};

}  // namespace shakedown
