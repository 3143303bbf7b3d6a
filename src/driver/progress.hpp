// Progress on rank 0: "[3/7] mpi_pingpong ... pass 12.4 s". On a terminal the line is live:
// rewritten in place while the test runs ("[3/7] burnin  120 s of ~600 s", redrawn by the
// heartbeat); in a log it is one line per finished test, and one "still running" line at most
// every `still_running_interval_s` of a test that runs longer.
#pragma once

#include "core/config.hpp"
#include "core/result.hpp"
#include "driver/expected_duration.hpp"

#include <cstdio>
#include <mutex>
#include <string>

namespace shakedown {

// Across all ranks of one test: the worst status, how many ranks had it, and one reason.
struct TestOutcome {
    Status worst = Status::pass;
    int ranks = 0;
    int ranks_with_worst = 0;
    int first_rank_with_worst = 0;
    std::string reason;
    double seconds = 0.0;
    bool bad_input = false;  // some rank's error was an InputError (TestResult::bad_input)
};

// Safe to call from two threads (the driver's and the heartbeat's): each line is written whole.
class Progress {
public:
    Progress(bool enabled, std::size_t total, ProgressStyle style, double still_running_interval_s = 60.0,
             std::FILE* out = stdout);

    void started(std::size_t index, const std::string& key);
    // The running test, `elapsed_s` into it: the live line redrawn, or in line mode a "still
    // running" line once `elapsed_s` has passed the next multiple of the interval.
    void running(std::size_t index, const std::string& key, double elapsed_s, const ExpectedDuration& expected);
    void finished(std::size_t index, const std::string& key, const TestOutcome& outcome);
    void message(const std::string& text);

    bool live() const { return live_; }

private:
    std::string prefix(std::size_t index, const std::string& key) const;

    const bool enabled_;
    const std::size_t total_;
    const double still_running_interval_s_;
    std::FILE* const out_;
    const bool live_;
    std::mutex mutex_;
    std::size_t still_running_lines_ = 0;  // of the running test
};

// "120 s of ~600 s", "120 s (expected time unknown)".
std::string elapsed_text(double elapsed_s, const ExpectedDuration& expected);

}  // namespace shakedown
