// One watchdog thread per rank. The driver arms it with a deadline before each test and
// disarms it after. If a test overruns, the watchdog records an event in the trace, marks the
// trace aborted, prints one line naming the test and rank, and exits the rank without calling
// MPI (the launcher then ends the job); if recording hangs, it exits after the grace period.
// While armed it also wakes every half second: a wake that comes seconds late means the whole
// process stood still (SIGSTOP, a paused VM, a node swapping), shorter than any deadline; each
// such freeze longer than `freeze_report_s` is kept for the driver to record with the test.
#pragma once

#include "core/activity.hpp"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace shakedown {

class Watchdog {
public:
    // Called on expiry with the one-line message and where the rank stood, before the rank
    // ends; it must not block for long (the trace writer's try_abort takes a bounded wait).
    // `late_s`: how long after the deadline the watchdog itself woke; seconds of it mean the whole
    // process was frozen (SIGSTOP, a VM paused), not only its main thread.
    using ExpiryAction = std::function<void(const std::string& message, const ActivitySnapshot& stood, double late_s)>;

    struct Freeze {
        std::string test_key;
        double seconds = 0.0;      // how long the process stood still
        double resumed_utc = 0.0;  // when the watchdog ran again
    };

    Watchdog(int world_rank, std::string node, double grace_s, double freeze_report_s, const Activity& activity,
             ExpiryAction on_expiry);
    ~Watchdog();
    Watchdog(const Watchdog&) = delete;
    Watchdog& operator=(const Watchdog&) = delete;

    void arm(const std::string& test_key, double deadline_s);
    void disarm();
    // The freezes seen since the last call (in the order they ended).
    std::vector<Freeze> take_freezes();

private:
    void watch();
    [[noreturn]] void expire(const std::string& test_key, double deadline_s, double late_s);

    const int world_rank_;
    const std::string node_;
    const double grace_s_;
    const double freeze_report_s_;
    const Activity& activity_;
    const ExpiryAction on_expiry_;

    std::mutex mutex_;
    std::condition_variable changed_;
    bool stopping_ = false;
    struct Armed {
        std::string test_key;
        double deadline_s;
        std::chrono::steady_clock::time_point expires_at;
    };
    std::optional<Armed> armed_;
    // The watcher's current sleep: the test it watches and when it asked to wake. A process that
    // stood still wakes late; whoever comes first after that (the watcher, or disarm() when the
    // main thread ran on before the watcher got a core back) records the freeze, once.
    struct Sleep {
        std::string test_key;
        std::chrono::steady_clock::time_point wake_at;
    };
    std::optional<Sleep> sleeping_;
    void note_freeze_locked(const Sleep& sleep);
    std::vector<Freeze> freezes_;
    std::thread thread_;  // last: starts after every member above exists
};

}  // namespace shakedown
