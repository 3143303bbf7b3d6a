// An ending signal handed by the kernel to any thread of a rank, including one a library started
// before main (OpenBLAS's workers: their mask blocks nothing), runs the armed action and ends
// the rank with 128 + signal; without the forwarding handler such a thread took the default
// action and the rank died without a word. Each case runs in a forked child.
#include "driver/termination.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <future>
#include <string>
#include <thread>

namespace shakedown {
namespace {

struct ChildOutcome {
    int exit_code = -1;        // -1: not exited normally
    int killed_by = 0;         // the signal that killed it, 0 if none
    std::string action_said;   // what the armed action wrote
};

pid_t thread_id() { return static_cast<pid_t>(::syscall(SYS_gettid)); }

enum class Target { library_thread, process };

// The child starts a thread that blocks nothing (as a library's would, before main), then the
// listener, arms it, and reports both thread ids; the parent signals the library's thread, or the
// process as kill(1) and slurmstepd do (the kernel picks a thread that does not block it).
ChildOutcome signal_the_child(Target target, int signal) {
    std::array<int, 2> ids{}, said{};
    if (::pipe(ids.data()) != 0 || ::pipe(said.data()) != 0) return {};
    const pid_t child = ::fork();
    if (child == 0) {
        ::alarm(10);  // a signal the listener never took ends the child (SIGALRM), not the test run
        // The library's thread runs (and is known) before the listener exists, as OpenBLAS's
        // workers start before main; the ids go out in one order, from this thread.
        std::promise<pid_t> started;
        std::thread library([&] {
            started.set_value(thread_id());
            for (;;) ::pause();
        });
        library.detach();
        const pid_t library_id = started.get_future().get();
        TerminationListener listener;
        const auto armed = listener.arm([&](int number) {
            const std::string text = "ended by signal " + std::to_string(number);
            (void)!::write(said[1], text.data(), text.size());
        });
        const pid_t main_id = thread_id();
        (void)!::write(ids[1], &library_id, sizeof library_id);
        (void)!::write(ids[1], &main_id, sizeof main_id);
        for (;;) ::pause();
    }
    ::close(ids[1]);
    ::close(said[1]);
    pid_t library_id = 0, main_id = 0;
    const bool read_both = ::read(ids[0], &library_id, sizeof library_id) == sizeof library_id &&
                           ::read(ids[0], &main_id, sizeof main_id) == sizeof main_id;
    EXPECT_TRUE(read_both);
    if (!read_both) ::kill(child, SIGKILL);
    else if (target == Target::library_thread) ::syscall(SYS_tgkill, child, library_id, signal);
    else ::kill(child, signal);
    int status = 0;
    ::waitpid(child, &status, 0);
    ChildOutcome outcome;
    if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) outcome.killed_by = WTERMSIG(status);
    char buffer[128];
    const ssize_t length = ::read(said[0], buffer, sizeof buffer);
    if (length > 0) outcome.action_said.assign(buffer, static_cast<std::size_t>(length));
    ::close(ids[0]);
    ::close(said[0]);
    return outcome;
}

TEST(Termination, ASigtermOnALibrarysThreadRunsTheActionAndEndsWith143) {
    const ChildOutcome outcome = signal_the_child(Target::library_thread, SIGTERM);
    EXPECT_EQ(outcome.killed_by, 0) << "the default action ended it: the signal bypassed the listener";
    EXPECT_EQ(outcome.exit_code, 128 + SIGTERM);
    EXPECT_EQ(outcome.action_said, "ended by signal 15");
}

TEST(Termination, ASigtermToTheProcessRunsTheActionWhicheverThreadTakesIt) {
    for (int round = 0; round < 5; ++round) {
        const ChildOutcome outcome = signal_the_child(Target::process, SIGTERM);
        EXPECT_EQ(outcome.killed_by, 0) << round;
        EXPECT_EQ(outcome.exit_code, 128 + SIGTERM) << round;
        EXPECT_EQ(outcome.action_said, "ended by signal 15") << round;
    }
}

TEST(Termination, SigintAndSighupToo) {
    for (const int signal : {SIGINT, SIGHUP}) {
        const ChildOutcome outcome = signal_the_child(Target::library_thread, signal);
        EXPECT_EQ(outcome.exit_code, 128 + signal) << signal;
        EXPECT_EQ(outcome.action_said, "ended by signal " + std::to_string(signal));
    }
}

}  // namespace
}  // namespace shakedown
