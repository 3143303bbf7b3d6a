#include "analysis/load/forked_workers.hpp"

#include <fmt/format.h>

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>

namespace shakedown {
namespace {

// A frame on a worker's pipe: this header, then `length` bytes (the result, or a failure's text).
struct FrameHeader {
    std::uint64_t index;
    std::uint32_t kind;
    std::uint32_t length;
};
enum FrameKind : std::uint32_t { result_frame = 0, failure_frame = 1 };

using Counter = std::atomic<std::size_t>;
static_assert(Counter::is_always_lock_free, "the shared counters must work across processes");
constexpr std::size_t idle = std::numeric_limits<std::size_t>::max();

// Counters every worker of one round sees: the next position to claim, and each worker's position
// in hand (what it was on if it dies). Anonymous shared memory survives fork() as the same pages.
class SharedCounters {
public:
    explicit SharedCounters(std::size_t workers) : bytes_(sizeof(Counter) * (1 + workers)) {
        void* memory = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (memory == MAP_FAILED) throw std::runtime_error(fmt::format("mmap: {}", std::strerror(errno)));
        counters_ = static_cast<Counter*>(memory);
        new (&counters_[0]) Counter(0);
        for (std::size_t i = 1; i <= workers; ++i) new (&counters_[i]) Counter(idle);
    }
    SharedCounters(const SharedCounters&) = delete;
    SharedCounters& operator=(const SharedCounters&) = delete;
    ~SharedCounters() { munmap(counters_, bytes_); }

    Counter& next() { return counters_[0]; }
    Counter& in_hand(std::size_t worker) { return counters_[1 + worker]; }

private:
    std::size_t bytes_;
    Counter* counters_ = nullptr;
};

bool write_all(int fd, const std::uint8_t* data, std::size_t size) {
    while (size > 0) {
        const ssize_t written = ::write(fd, data, size);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return false;
        data += written;
        size -= static_cast<std::size_t>(written);
    }
    return true;
}

// A worker's whole life: claim, work, send, until the positions run out; never returns.
[[noreturn]] void worker_main(const ForkedWork& work, const std::vector<std::size_t>& todo, SharedCounters& counters,
                              std::size_t worker, int fd) {
    signal(SIGPIPE, SIG_IGN);  // a parent gone is a failed write, not a silent death
    std::vector<std::uint8_t> frame;
    for (;;) {
        const std::size_t position = counters.next().fetch_add(1);
        if (position >= todo.size()) break;
        counters.in_hand(worker).store(position);
        const std::size_t index = todo[position];
        std::vector<std::uint8_t> payload;
        FrameKind kind = result_frame;
        try {
            payload = work.work(index);
        } catch (const std::exception& error) {
            kind = failure_frame;
            const std::string_view text = error.what();
            payload.assign(text.begin(), text.end());
        } catch (...) {
            kind = failure_frame;
            const std::string_view text = "unknown exception";
            payload.assign(text.begin(), text.end());
        }
        if (payload.size() > std::numeric_limits<std::uint32_t>::max()) _exit(4);
        const FrameHeader header{index, kind, static_cast<std::uint32_t>(payload.size())};
        frame.resize(sizeof header + payload.size());
        std::memcpy(frame.data(), &header, sizeof header);
        std::copy(payload.begin(), payload.end(), frame.begin() + sizeof header);
        if (!write_all(fd, frame.data(), frame.size())) _exit(3);
    }
    _exit(0);
}

std::string describe_end(int status) {
    if (WIFSIGNALED(status)) {
        const int signal_number = WTERMSIG(status);
        const char* name = sigabbrev_np(signal_number);
        return fmt::format("its reader process died of signal {} (SIG{})", signal_number, name ? name : "?");
    }
    return fmt::format("its reader process exited with code {}", WEXITSTATUS(status));
}

// One forked worker as seen from the parent. The destructor kills and reaps a worker still
// running, so an exception in the parent leaves no process behind.
struct Worker {
    pid_t pid = -1;
    int fd = -1;
    std::vector<std::uint8_t> buffer;
    std::size_t consumed = 0;

    Worker() = default;
    Worker(const Worker&) = delete;
    Worker& operator=(const Worker&) = delete;
    ~Worker() {
        if (fd >= 0) ::close(fd);
        if (pid > 0) {
            kill(pid, SIGKILL);
            int status = 0;
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
        }
    }
    // Reaps the ended worker: its wait status.
    int reap() {
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        pid = -1;
        return status;
    }
};

void run_here(const ForkedWork& work, const std::vector<std::size_t>& todo, std::size_t from) {
    for (std::size_t position = from; position < todo.size(); ++position) {
        const std::size_t index = todo[position];
        std::vector<std::uint8_t> result;
        try {
            result = work.work(index);
        } catch (const std::exception& error) {
            work.lost(index, error.what());
            continue;
        }
        work.take(index, result);
    }
}

// One round: forks up to `jobs` workers over `todo`; marks `done` what was taken or lost.
void run_round(const ForkedWork& work, const std::vector<std::size_t>& todo, std::vector<char>& done) {
    const std::size_t jobs = std::min<std::size_t>(static_cast<std::size_t>(work.jobs), todo.size());
    SharedCounters counters(jobs);
    std::vector<Worker> workers(jobs);
    std::size_t started = 0;
    for (; started < jobs; ++started) {
        int ends[2];
        if (pipe(ends) != 0) break;
        const pid_t pid = fork();
        if (pid < 0) {
            ::close(ends[0]);
            ::close(ends[1]);
            break;
        }
        if (pid == 0) {
            ::close(ends[0]);
            for (std::size_t other = 0; other < started; ++other) ::close(workers[other].fd);
            worker_main(work, todo, counters, started, ends[1]);
        }
        ::close(ends[1]);
        workers[started].pid = pid;
        workers[started].fd = ends[0];
    }
    if (started == 0) {  // no process to be had: the work still gets done, here
        run_here(work, todo, 0);
        for (std::size_t index : todo) done[index] = 1;
        return;
    }

    auto take_frames = [&](Worker& worker) {
        for (;;) {
            const std::size_t available = worker.buffer.size() - worker.consumed;
            if (available < sizeof(FrameHeader)) break;
            FrameHeader header{};
            std::memcpy(&header, worker.buffer.data() + worker.consumed, sizeof header);
            if (available < sizeof header + header.length) break;
            const std::span<const std::uint8_t> payload(worker.buffer.data() + worker.consumed + sizeof header,
                                                        header.length);
            const auto index = static_cast<std::size_t>(header.index);
            if (header.kind == result_frame) work.take(index, payload);
            else work.lost(index, std::string(payload.begin(), payload.end()));
            done[index] = 1;
            worker.consumed += sizeof header + header.length;
        }
        if (worker.consumed > (std::size_t{1} << 20) || worker.consumed == worker.buffer.size()) {
            worker.buffer.erase(worker.buffer.begin(), worker.buffer.begin() + static_cast<std::ptrdiff_t>(worker.consumed));
            worker.consumed = 0;
        }
    };

    std::size_t open = started;
    std::vector<pollfd> polled;
    std::vector<std::size_t> polled_worker;
    std::vector<std::uint8_t> chunk(std::size_t{1} << 16);
    while (open > 0) {
        polled.clear();
        polled_worker.clear();
        for (std::size_t w = 0; w < started; ++w)
            if (workers[w].fd >= 0) {
                polled.push_back({workers[w].fd, POLLIN, 0});
                polled_worker.push_back(w);
            }
        if (poll(polled.data(), polled.size(), -1) < 0) {
            if (errno == EINTR) continue;
            throw std::runtime_error(fmt::format("poll: {}", std::strerror(errno)));
        }
        for (std::size_t p = 0; p < polled.size(); ++p) {
            if (polled[p].revents == 0) continue;
            Worker& worker = workers[polled_worker[p]];
            const ssize_t got = ::read(worker.fd, chunk.data(), chunk.size());
            if (got < 0 && errno == EINTR) continue;
            if (got > 0) {
                worker.buffer.insert(worker.buffer.end(), chunk.begin(), chunk.begin() + got);
                take_frames(worker);
                continue;
            }
            // End of the pipe: the worker finished or died. What it had in hand, untaken, is lost.
            ::close(worker.fd);
            worker.fd = -1;
            --open;
            const int status = worker.reap();
            if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
            const std::size_t position = counters.in_hand(polled_worker[p]).load();
            if (position != idle && !done[todo[position]]) {
                work.lost(todo[position], describe_end(status));
                done[todo[position]] = 1;
            }
        }
    }
}

}  // namespace

void run_forked(const ForkedWork& work) {
    std::vector<std::size_t> todo(work.count);
    for (std::size_t i = 0; i < work.count; ++i) todo[i] = i;
    if (work.jobs <= 1 || work.count <= 1) {
        run_here(work, todo, 0);
        return;
    }
    std::vector<char> done(work.count, 0);
    while (!todo.empty()) {
        run_round(work, todo, done);
        std::vector<std::size_t> left;
        for (std::size_t index : todo)
            if (!done[index]) left.push_back(index);
        // A round that ended with items left lost a worker between two items; the next round
        // takes them. One that finished none of its items would loop for ever.
        if (left.size() == todo.size())
            throw std::runtime_error(fmt::format("{} item(s) left: every reader process ended without finishing one",
                                                 left.size()));
        todo = std::move(left);
    }
}

int usable_cores() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
    return std::max(1, CPU_COUNT(&set));
}

}  // namespace shakedown
