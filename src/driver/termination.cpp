#include "driver/termination.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>

namespace shakedown {
namespace {

constexpr int ending_signals[] = {SIGTERM, SIGINT, SIGHUP};

// SIGUSR2 is our own wake-up call for a clean shutdown of the listener.
sigset_t handled_signals() {
    sigset_t set;
    sigemptyset(&set);
    for (int signal : ending_signals) sigaddset(&set, signal);
    sigaddset(&set, SIGUSR2);
    return set;
}

// The listener's kernel thread id, for the forwarding handler below. A signal handler can reach
// no object, so this one value is process-wide; only the listener's constructor and destructor
// write it (0: no listener).
std::atomic<pid_t> listener_thread{0};

// Threads a library started before main (OpenBLAS's workers start when the library loads) never
// inherited the blocked mask: the kernel may hand a process-wide SIGTERM to one of them, where
// the default action would end the rank before its trace says why. The handler passes the signal
// on to the listener thread, which blocks it and takes it with sigwait.
extern "C" void forward_to_listener(int signal) {
    const int saved_errno = errno;
    if (const pid_t listener = listener_thread.load(); listener != 0) ::syscall(SYS_tgkill, ::getpid(), listener, signal);
    errno = saved_errno;
}

}  // namespace

TerminationListener::TerminationListener() {
    const sigset_t set = handled_signals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    thread_ = std::thread([this] {
        listener_thread.store(static_cast<pid_t>(::syscall(SYS_gettid)));
        listening_.store(true);
        listening_.notify_one();
        listen();
    });
    listening_.wait(false);
    struct sigaction forward {};
    forward.sa_handler = forward_to_listener;
    sigfillset(&forward.sa_mask);
    forward.sa_flags = SA_RESTART;
    for (int signal : ending_signals) sigaction(signal, &forward, nullptr);
}

TerminationListener::~TerminationListener() {
    set_action(nullptr);
    // From here an ending signal ends the process as it would without a listener.
    struct sigaction fallback {};
    fallback.sa_handler = SIG_DFL;
    for (int signal : ending_signals) sigaction(signal, &fallback, nullptr);
    listener_thread.store(0);
    pthread_kill(thread_.native_handle(), SIGUSR2);
    thread_.join();
}

TerminationListener::Armed TerminationListener::arm(std::function<void(int)> action) {
    set_action(std::move(action));
    return Armed(*this);
}

void TerminationListener::set_action(std::function<void(int)> action) {
    std::lock_guard lock(mutex_);
    action_ = std::move(action);
}

void TerminationListener::listen() {
    const sigset_t set = handled_signals();
    int signal = 0;
    while (sigwait(&set, &signal) == 0) {
        if (signal == SIGUSR2) return;
        {
            // Held until exit: the trace the action writes cannot be destroyed meanwhile.
            std::lock_guard lock(mutex_);
            if (action_) action_(signal);
        }
        std::_Exit(128 + signal);
    }
}

}  // namespace shakedown
