#include "driver/watchdog.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

namespace shakedown {

Watchdog::Watchdog(int world_rank, std::string node, double grace_s, ExpiryAction on_expiry)
    : world_rank_(world_rank), node_(std::move(node)), grace_s_(grace_s), on_expiry_(std::move(on_expiry)),
      thread_([this] { watch(); }) {}

Watchdog::~Watchdog() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

void Watchdog::arm(const std::string& test_key, double deadline_s) {
    {
        std::lock_guard lock(mutex_);
        const auto span = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(deadline_s));
        armed_ = Armed{test_key, deadline_s, std::chrono::steady_clock::now() + span};
    }
    changed_.notify_all();
}

void Watchdog::disarm() {
    {
        std::lock_guard lock(mutex_);
        armed_.reset();
    }
    changed_.notify_all();
}

void Watchdog::watch() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        if (!armed_) {
            changed_.wait(lock);
            continue;
        }
        const auto expires_at = armed_->expires_at;
        if (changed_.wait_until(lock, expires_at) == std::cv_status::timeout && armed_ &&
            armed_->expires_at == expires_at) {
            const Armed expired = *armed_;
            lock.unlock();
            expire(expired.test_key, expired.deadline_s);
        }
    }
}

void Watchdog::expire(const std::string& test_key, double deadline_s) {
    const auto message = fmt::format("shakedown: watchdog: test '{}' passed its {:.0f} s deadline on rank {} ({}); "
                                     "aborting the job",
                                     test_key, deadline_s, world_rank_, node_);
    // If the abort below itself hangs (a wedged network, a stuck driver call), leave anyway.
    std::thread([grace = grace_s_] {
        std::this_thread::sleep_for(std::chrono::duration<double>(grace));
        std::fputs("shakedown: watchdog: MPI_Abort did not end the job; exiting\n", stderr);
        std::_Exit(exit_code::incomplete);
    }).detach();
    on_expiry_(message);
    std::fprintf(stderr, "%s\n", message.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, exit_code::incomplete);
    std::_Exit(exit_code::incomplete);
}

}  // namespace shakedown
