// Runs a command line for the end-to-end tests (the real driver under the real mpirun) through the
// product's process runner, with its exit code, both streams in the order written and the wall
// time; the time limit kills the whole process group, so a broken build cannot hang CI (the
// watchdog tests assert a much tighter bound themselves).
#pragma once

#include <string>
#include <vector>

namespace shakedown::testing {

struct ProcessResult {
    int exit_code = -1;
    std::string output;  // stdout and stderr together
    double seconds = 0.0;
};

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s = 180.0);

// mpirun with the flags this 2-core CI machine needs (oversubscription, root), then argv.
std::vector<std::string> mpirun(int ranks, std::vector<std::string> argv);

}  // namespace shakedown::testing
