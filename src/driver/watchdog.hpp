// One watchdog thread per rank. The driver arms it with a deadline before each test and
// disarms it after. If a test overruns, the watchdog records an event in the trace, marks the
// trace aborted, prints one line naming the test and rank, and aborts the whole MPI job; if
// even that hangs, the process exits on its own after the grace period.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace shakedown {

class Watchdog {
public:
    // Called on expiry with the one-line message, before the job is aborted; it must not
    // block for long (the trace writer's try_abort takes a bounded wait).
    using ExpiryAction = std::function<void(const std::string& message)>;

    Watchdog(int world_rank, std::string node, double grace_s, ExpiryAction on_expiry);
    ~Watchdog();
    Watchdog(const Watchdog&) = delete;
    Watchdog& operator=(const Watchdog&) = delete;

    void arm(const std::string& test_key, double deadline_s);
    void disarm();

private:
    void watch();
    [[noreturn]] void expire(const std::string& test_key, double deadline_s);

    const int world_rank_;
    const std::string node_;
    const double grace_s_;
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
    std::thread thread_;  // last: starts after every member above exists
};

}  // namespace shakedown
