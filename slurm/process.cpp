#include "slurm/process.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <utility>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace shakedown::slurm {
namespace {

// An owned file descriptor, closed once.
class FileDescriptor {
public:
    FileDescriptor() = default;
    explicit FileDescriptor(int fd) : fd_(fd) {}
    FileDescriptor(FileDescriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    FileDescriptor& operator=(FileDescriptor&& other) noexcept {
        if (this != &other) {
            reset();
            fd_ = std::exchange(other.fd_, -1);
        }
        return *this;
    }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    ~FileDescriptor() { reset(); }

    int get() const { return fd_; }
    bool is_open() const { return fd_ >= 0; }
    void reset() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }

private:
    int fd_ = -1;
};

struct Pipe {
    FileDescriptor read_end;
    FileDescriptor write_end;
};

Pipe make_pipe() {
    std::array<int, 2> fds{};
    if (::pipe2(fds.data(), O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
    return {FileDescriptor(fds[0]), FileDescriptor(fds[1])};
}

// posix_spawn's file actions, destroyed on every path.
class SpawnFileActions {
public:
    SpawnFileActions() { posix_spawn_file_actions_init(&actions_); }
    ~SpawnFileActions() { posix_spawn_file_actions_destroy(&actions_); }
    SpawnFileActions(const SpawnFileActions&) = delete;
    SpawnFileActions& operator=(const SpawnFileActions&) = delete;
    posix_spawn_file_actions_t* get() { return &actions_; }

private:
    posix_spawn_file_actions_t actions_{};
};

int decode_wait_status(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
}

bool needs_quoting(const std::string& word) {
    if (word.empty()) return true;
    for (const char c : word)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || std::strchr("@%+=:,./-_", c) != nullptr)) return true;
    return false;
}

}  // namespace

std::string describe_command(const std::vector<std::string>& argv) {
    std::string text;
    for (const auto& word : argv) {
        if (!text.empty()) text += ' ';
        if (!needs_quoting(word)) {
            text += word;
            continue;
        }
        text += '\'';
        for (const char c : word) text += c == '\'' ? std::string("'\\''") : std::string(1, c);
        text += '\'';
    }
    return text;
}

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s) {
    if (argv.empty() || argv.front().empty()) throw InputError("no program to run");

    auto out_pipe = make_pipe();
    auto err_pipe = make_pipe();
    SpawnFileActions actions;
    posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(actions.get(), out_pipe.write_end.get(), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(actions.get(), err_pipe.write_end.get(), STDERR_FILENO);

    std::vector<char*> arguments;
    for (const auto& word : argv) arguments.push_back(const_cast<char*>(word.c_str()));
    arguments.push_back(nullptr);

    pid_t pid = 0;
    const int spawn_error = posix_spawnp(&pid, arguments.front(), actions.get(), nullptr, arguments.data(), environ);
    if (spawn_error != 0) {
        ProcessResult failed;
        failed.exit_code = 127;
        failed.err = fmt::format("cannot run '{}': {}", argv.front(), std::strerror(spawn_error));
        return failed;
    }
    out_pipe.write_end.reset();
    err_pipe.write_end.reset();

    ProcessResult result;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    std::array<char, 4096> buffer{};
    while (out_pipe.read_end.is_open() || err_pipe.read_end.is_open()) {
        std::array<pollfd, 2> watched{{{out_pipe.read_end.get(), POLLIN, 0}, {err_pipe.read_end.get(), POLLIN, 0}}};
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            result.timed_out = true;
            ::kill(pid, SIGKILL);
            break;
        }
        const int ready = ::poll(watched.data(), watched.size(), static_cast<int>(left.count()));
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) break;
        const auto drain = [&](FileDescriptor& fd, const pollfd& event, std::string& into) {
            if (!fd.is_open() || event.revents == 0) return;
            const auto count = ::read(fd.get(), buffer.data(), buffer.size());
            if (count > 0)
                into.append(buffer.data(), static_cast<std::size_t>(count));
            else if (count == 0 || errno != EINTR)
                fd.reset();
        };
        drain(out_pipe.read_end, watched[0], result.out);
        drain(err_pipe.read_end, watched[1], result.err);
    }

    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.exit_code = decode_wait_status(status);
    return result;
}

}  // namespace shakedown::slurm
