#include "driver/termination.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>

namespace shakedown {
namespace {

// SIGUSR2 is our own wake-up call for a clean shutdown of the listener.
sigset_t handled_signals() {
    sigset_t set;
    sigemptyset(&set);
    for (int signal : {SIGTERM, SIGINT, SIGHUP, SIGUSR2}) sigaddset(&set, signal);
    return set;
}

}  // namespace

TerminationListener::TerminationListener() {
    const sigset_t set = handled_signals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    thread_ = std::thread([this] { listen(); });
}

TerminationListener::~TerminationListener() {
    set_action(nullptr);
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
