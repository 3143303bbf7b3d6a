// Turns SIGTERM/SIGINT/SIGHUP into an orderly end: when a launcher kills the job (srun
// --kill-on-bad-exit, mpirun after one rank died, scancel), each surviving rank records why
// in its trace and marks it aborted, so the analyzer names only the rank that really died.
// The signals are blocked in every thread this process starts and taken by one listener thread
// with sigwait, so the trace is written outside any signal handler; a thread a library started
// before main (which does not block them) passes them on to the listener through a handler.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <thread>

namespace shakedown {

class TerminationListener {
public:
    // Must be constructed before MPI_Init and before any other thread starts, so that every
    // thread inherits the blocked signals.
    TerminationListener();
    ~TerminationListener();  // unblocks nothing: the process is ending
    TerminationListener(const TerminationListener&) = delete;
    TerminationListener& operator=(const TerminationListener&) = delete;

    // While the returned guard lives, `action` runs on a signal before the process exits
    // with 128 + signal; otherwise the process just exits.
    class Armed {
    public:
        explicit Armed(TerminationListener& owner) : owner_(owner) {}
        ~Armed() { owner_.set_action(nullptr); }
        Armed(const Armed&) = delete;
        Armed& operator=(const Armed&) = delete;

    private:
        TerminationListener& owner_;
    };
    [[nodiscard]] Armed arm(std::function<void(int signal)> action);

private:
    void set_action(std::function<void(int)> action);
    void listen();

    std::mutex mutex_;
    std::function<void(int)> action_;
    std::atomic<bool> listening_{false};  // the listener thread knows its id (the handler can forward)
    std::thread thread_;
};

}  // namespace shakedown
