#include "background_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace shakedown::testing {
namespace {

double monotonic_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int exit_code_of(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

}  // namespace

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& argv, std::filesystem::path output, double timeout_s)
    : output_(std::move(output)), timeout_s_(timeout_s), started_(monotonic_s()) {
    std::vector<char*> words;
    for (const auto& word : argv) words.push_back(const_cast<char*>(word.c_str()));
    words.push_back(nullptr);
    const int fd = ::open(output_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("cannot create " + output_.string());
    pid_ = ::fork();
    if (pid_ == 0) {
        ::dup2(fd, STDOUT_FILENO);
        ::dup2(fd, STDERR_FILENO);
        const int null = ::open("/dev/null", O_RDONLY);
        ::dup2(null, STDIN_FILENO);
        ::execvp(words[0], words.data());
        ::_exit(127);
    }
    ::close(fd);
    if (pid_ < 0) throw std::runtime_error("fork failed");
}

BackgroundProcess::~BackgroundProcess() {
    if (ended_ || pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
}

bool BackgroundProcess::running() {
    if (ended_) return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        ended_ = true;
        exit_code_ = exit_code_of(status);
        return false;
    }
    if (monotonic_s() - started_ > timeout_s_) ::kill(pid_, SIGKILL);
    return true;
}

void BackgroundProcess::signal(int number) {
    if (!ended_) ::kill(pid_, number);
}

int BackgroundProcess::wait() {
    while (running()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return exit_code_;
}

std::string BackgroundProcess::output() const {
    std::ifstream in(output_);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace shakedown::testing
