#include "driver/watchdog.hpp"

#include "core/printable_text.hpp"

#include "core/errors.hpp"
#include "trace/trace_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <cstdio>
#include <cstdlib>

namespace shakedown {

namespace {

// How often an armed watchdog wakes to see whether its process stood still.
constexpr auto tick = std::chrono::milliseconds(500);

double now_utc_s() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

Watchdog::Watchdog(int world_rank, std::string node, double grace_s, double freeze_report_s, const Activity& activity,
                   ExpiryAction on_expiry)
    : world_rank_(world_rank), node_(std::move(node)), grace_s_(grace_s), freeze_report_s_(freeze_report_s),
      activity_(activity), on_expiry_(std::move(on_expiry)), thread_([this] { watch(); }) {}

Watchdog::~Watchdog() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

void Watchdog::arm(const std::string& test_key, double deadline_s) {
    {
        std::lock_guard lock(mutex_);
        const auto span = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(deadline_s));
        armed_ = Armed{test_key, deadline_s, std::chrono::steady_clock::now() + span};
    }
    changed_.notify_all();
}

void Watchdog::disarm() {
    {
        std::lock_guard lock(mutex_);
        // The watcher may not have run since the process continued: its late wake is this test's.
        if (sleeping_) note_freeze_locked(*sleeping_);
        sleeping_.reset();
        armed_.reset();
    }
    changed_.notify_all();
}

void Watchdog::note_freeze_locked(const Sleep& sleep) {
    const double late_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - sleep.wake_at).count();
    if (late_s > freeze_report_s_) freezes_.push_back({sleep.test_key, late_s, now_utc_s()});
}

std::vector<Watchdog::Freeze> Watchdog::take_freezes() {
    std::lock_guard lock(mutex_);
    return std::exchange(freezes_, {});
}

void Watchdog::watch() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        if (!armed_) {
            changed_.wait(lock);
            continue;
        }
        const auto expires_at = armed_->expires_at;
        const std::string test_key = armed_->test_key;
        const auto asleep_at = std::chrono::steady_clock::now();
        const auto wake_at = std::min(expires_at, asleep_at + tick);
        sleeping_ = Sleep{test_key, wake_at};
        const bool timed_out = changed_.wait_until(lock, wake_at) == std::cv_status::timeout;
        // Woken this much later than asked: nothing of the process ran meanwhile (unless disarm()
        // came first and recorded it).
        if (sleeping_) note_freeze_locked(*sleeping_);
        sleeping_.reset();
        if (timed_out && armed_ && armed_->expires_at == expires_at && std::chrono::steady_clock::now() >= expires_at) {
            const Armed expired = *armed_;
            const double past_deadline_s =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - expires_at).count();
            lock.unlock();
            expire(expired.test_key, expired.deadline_s, past_deadline_s);
        }
    }
}

void Watchdog::expire(const std::string& test_key, double deadline_s, double late_s) {
    const ActivitySnapshot stood = activity_.snapshot();
    const auto message = fmt::format("shakedown: watchdog: test '{}' passed its {:.0f} s deadline on rank {} ({}) in {}; "
                                     "ending this rank, and with it the job",
                                     test_key, deadline_s, world_rank_, node_, stood.describe());
    // If recording it hangs (a wedged file system), leave anyway.
    std::thread([grace = grace_s_ + watchdog_collect_s] {
        std::this_thread::sleep_for(std::chrono::duration<double>(grace));
        std::fputs("shakedown: watchdog: recording the expiry did not finish; exiting\n", stderr);
        std::_Exit(exit_code::incomplete);
    }).detach();
    on_expiry_(message, stood, late_s);
    std::fprintf(stderr, "%s\n", escape_control(message).c_str());
    std::fflush(stderr);
    // The other live ranks armed the same deadline at the same barrier: give their watchdogs the
    // moment to say where they stood before the launcher ends the job. A rank that says nothing
    // then is one that stopped (the analyzer names it).
    std::this_thread::sleep_for(std::chrono::duration<double>(watchdog_collect_s));
    // No MPI from this thread (only the main thread calls MPI: MPI_THREAD_SINGLE, without the
    // locks Open MPI puts on every call above it): a rank that leaves without MPI_Finalize ends
    // the job (mpirun; srun with --kill-on-bad-exit, as the job script runs it).
    std::_Exit(exit_code::incomplete);
}

}  // namespace shakedown
