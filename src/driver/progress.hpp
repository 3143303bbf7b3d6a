// Progress on rank 0: "[3/7] mpi_pingpong ... pass 12.4 s". On a terminal the line is live
// (rewritten in place while the test runs); in a log it is one line per finished test.
#pragma once

#include "core/config.hpp"
#include "core/result.hpp"

#include <cstdio>
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

class Progress {
public:
    Progress(bool enabled, std::size_t total, ProgressStyle style, std::FILE* out = stdout);

    void started(std::size_t index, const std::string& key);
    void finished(std::size_t index, const std::string& key, const TestOutcome& outcome);
    void message(const std::string& text);

private:
    std::string prefix(std::size_t index, const std::string& key) const;

    bool enabled_;
    std::size_t total_;
    std::FILE* out_;
    bool live_;
};

}  // namespace shakedown
