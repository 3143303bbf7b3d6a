#include "core/process_runner.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>

extern char** environ;

namespace shakedown {
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

// posix_spawn's attributes, destroyed on every path.
class SpawnAttributes {
public:
    SpawnAttributes() { posix_spawnattr_init(&attributes_); }
    ~SpawnAttributes() { posix_spawnattr_destroy(&attributes_); }
    SpawnAttributes(const SpawnAttributes&) = delete;
    SpawnAttributes& operator=(const SpawnAttributes&) = delete;
    posix_spawnattr_t* get() { return &attributes_; }

private:
    posix_spawnattr_t attributes_{};
};

// After the program exits, what its group left behind is killed; a helper outside the group that
// still holds a pipe gets this long before the pipe is closed unread.
constexpr auto drain_after_exit = std::chrono::seconds(2);
// How often the program's exit is looked for while its pipes stay open.
constexpr int exit_check_ms = 50;

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

std::string first_line(const std::string& text) {
    auto line = text.substr(0, text.find('\n'));
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    return line;
}

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

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s, OutputStreams streams) {
    if (argv.empty() || argv.front().empty()) throw InputError("no program to run");

    auto out_pipe = make_pipe();
    auto err_pipe = make_pipe();
    SpawnFileActions actions;
    posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(actions.get(), out_pipe.write_end.get(), STDOUT_FILENO);
    const auto& error_end = streams == OutputStreams::merged ? out_pipe.write_end : err_pipe.write_end;
    posix_spawn_file_actions_adddup2(actions.get(), error_end.get(), STDERR_FILENO);

    std::vector<char*> arguments;
    for (const auto& word : argv) arguments.push_back(const_cast<char*>(word.c_str()));
    arguments.push_back(nullptr);

    // A group of its own: a timeout kills the program and every helper it forked with one signal.
    SpawnAttributes attributes;
    posix_spawnattr_setflags(attributes.get(), POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(attributes.get(), 0);

    pid_t pid = 0;
    const int spawn_error =
        posix_spawnp(&pid, arguments.front(), actions.get(), attributes.get(), arguments.data(), environ);
    if (spawn_error != 0) {
        ProcessResult failed;
        failed.exit_code = 127;
        failed.started = false;
        failed.err = fmt::format("cannot run '{}': {}", argv.front(), std::strerror(spawn_error));
        return failed;
    }
    out_pipe.write_end.reset();
    err_pipe.write_end.reset();

    ProcessResult result;
    // Any limit past a year is no limit (and keeps the clock arithmetic finite).
    const double limit_s = std::isfinite(timeout_s) ? std::clamp(timeout_s, 0.0, 365.0 * 86400.0) : 365.0 * 86400.0;
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(limit_s));
    std::optional<int> status;  // set once the program has exited
    std::array<char, 4096> buffer{};
    while (out_pipe.read_end.is_open() || err_pipe.read_end.is_open()) {
        if (!status) {
            int raw = 0;
            const pid_t done = ::waitpid(pid, &raw, WNOHANG);
            if (done == pid) {
                status = raw;
                ::kill(-pid, SIGKILL);  // what it left in its group (ESRCH when nothing)
                deadline = std::min(deadline,
                                    std::chrono::steady_clock::now() +
                                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(drain_after_exit));
            }
        }
        std::array<pollfd, 2> watched{{{out_pipe.read_end.get(), POLLIN, 0}, {err_pipe.read_end.get(), POLLIN, 0}}};
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            if (!status) {
                result.timed_out = true;
                ::kill(-pid, SIGKILL);
            }
            break;
        }
        // In milliseconds before narrowing: a limit of weeks does not fit an int. Once the program
        // has exited the deadline is at most drain_after_exit away.
        const int wait_ms = static_cast<int>(status ? left.count() : std::min<std::int64_t>(left.count(), exit_check_ms));
        const int ready = ::poll(watched.data(), watched.size(), wait_ms);
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) break;
        const auto drain = [&](FileDescriptor& fd, const pollfd& event, std::string& into) {
            if (!fd.is_open() || event.revents == 0) return;
            const auto count = ::read(fd.get(), buffer.data(), buffer.size());
            if (count > 0) into.append(buffer.data(), static_cast<std::size_t>(count));
            else if (count == 0 || errno != EINTR) fd.reset();
        };
        drain(out_pipe.read_end, watched[0], result.out);
        drain(err_pipe.read_end, watched[1], result.err);
    }

    if (!status) {
        int raw = 0;
        while (::waitpid(pid, &raw, 0) < 0 && errno == EINTR) {
        }
        status = raw;
    }
    ::kill(-pid, SIGKILL);  // the group's last members, if any outlived the pipes
    result.exit_code = decode_wait_status(*status);
    return result;
}

}  // namespace shakedown
