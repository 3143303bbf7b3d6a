// A command line started in the background for the end-to-end tests that watch a run while it
// goes (poll its files, signal it): output to a file, a hard timeout, waited for on destruction.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <sys/types.h>

namespace shakedown::testing {

class BackgroundProcess {
public:
    BackgroundProcess(const std::vector<std::string>& argv, std::filesystem::path output, double timeout_s = 180.0);
    ~BackgroundProcess();  // kills a process still running (SIGKILL) and reaps it
    BackgroundProcess(const BackgroundProcess&) = delete;
    BackgroundProcess& operator=(const BackgroundProcess&) = delete;

    bool running();           // false once it ended (its exit code is then kept)
    void signal(int number);  // to the process itself (mpirun forwards it to its ranks)
    int wait();               // exit code, 128 + signal when killed; SIGKILL after the timeout
    std::string output() const;

private:
    pid_t pid_ = -1;
    std::filesystem::path output_;
    double timeout_s_;
    int exit_code_ = -1;
    bool ended_ = false;
    double started_ = 0.0;
};

}  // namespace shakedown::testing
