#include "driver/heartbeat.hpp"

#include "core/clock.hpp"
#include "core/json_text.hpp"
#include "core/output_file.hpp"
#include "core/printable_text.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace shakedown {
namespace {

// How often the line is redrawn; the file is rewritten at most every file interval of these.
constexpr std::chrono::milliseconds tick{500};
// How long abort() waits for a write in progress before it gives up on the file.
constexpr std::chrono::seconds abort_wait{1};

}  // namespace

Heartbeat::Heartbeat(bool enabled, std::filesystem::path file, ProgressRun run, Progress& progress, double file_interval_s)
    : enabled_(enabled), file_(std::move(file)), run_(std::move(run)), progress_(progress), file_interval_(file_interval_s) {
    if (!enabled_) return;
    std::lock_guard lock(mutex_);
    write_locked();
    // The beat thread starts with the first test, not here: under srun (UCX over TCP) a rank 0
    // that started it here while the driver went on setting up its telemetry and watchdog died
    // at start with a call through a null pointer in about half of the virtual cluster's
    // rate-limited runs; started at the first test, none did (slurm_cluster_rate_limited).
}

Heartbeat::~Heartbeat() {
    if (!enabled_) return;
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        // Left without finish() or abort(): an exception ended the run between its tests' ends.
        if (!ended_) end_locked(RunState::aborted, "the run ended before its last test (see the output and the traces)");
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void Heartbeat::test_started(std::size_t index, const std::string& key, ExpectedDuration expected) {
    if (!enabled_) return;
    std::lock_guard lock(mutex_);
    if (ended_) return;
    test_started_at_ = std::chrono::steady_clock::now();
    snapshot_.current = RunningTest{index, key, now_utc(), 0.0, std::move(expected)};
    write_locked();
    if (!thread_.joinable()) thread_ = std::thread([this] { beat(); });  // waits for the lock held here
}

void Heartbeat::test_finished(std::size_t index, const std::string& key, Status worst, double seconds) {
    if (!enabled_) return;
    std::lock_guard lock(mutex_);
    if (ended_) return;
    snapshot_.current.reset();  // from here on the line is the driver's "pass 12.4 s"
    snapshot_.finished.push_back({index, key, std::string(to_string(worst)), seconds});
    write_locked();
}

void Heartbeat::finish() {
    if (!enabled_) return;
    std::lock_guard lock(mutex_);
    if (!ended_) end_locked(RunState::finished, "");
}

void Heartbeat::abort(const std::string& reason) {
    if (!enabled_) return;
    std::unique_lock lock(mutex_, std::defer_lock);
    if (!lock.try_lock_for(abort_wait)) return;  // the last file written stays, whole
    if (!ended_) end_locked(RunState::aborted, reason);
}

void Heartbeat::end_locked(RunState state, const std::string& reason) {
    if (snapshot_.current) snapshot_.current->elapsed_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - test_started_at_).count();
    snapshot_.state = state;
    snapshot_.reason = reason;
    write_locked();
    ended_ = true;
}

void Heartbeat::beat() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        changed_.wait_for(lock, tick);
        if (stopping_ || ended_ || !snapshot_.current) continue;
        const auto now = std::chrono::steady_clock::now();
        RunningTest& test = *snapshot_.current;
        test.elapsed_s = std::chrono::duration<double>(now - test_started_at_).count();
        progress_.running(test.index, test.key, test.elapsed_s, test.expected);
        if (now - written_at_ >= file_interval_) write_locked();
    }
}

void Heartbeat::write_locked() {
    snapshot_.updated_utc = now_utc();
    written_at_ = std::chrono::steady_clock::now();
    try {
        write_file_atomically(file_, json_text(progress_json(run_, snapshot_), 2) + "\n", Flush::to_page_cache);
    } catch (const std::exception& error) {
        // The heartbeat is a convenience: a full disk must not end the run (the traces say so).
        if (!write_failed_) std::fprintf(stderr, "shakedown: heartbeat: %s; going on without it\n", escape_control(error.what()).c_str());
        write_failed_ = true;
    }
}

}  // namespace shakedown
