// Two threads play the two ranks of a pair against one FakeVerbs: a PeerChannel between them
// (a rendezvous with a timeout, so a side that died does not hang the other) and a helper that
// runs a function on both sides and hands back each side's value or exception.
#pragma once

#include "ib/pair/peer_channel.hpp"
#include "ib/verbs/verbs_api.hpp"

#include <fmt/format.h>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace shakedown::ib::testing {

class ThreadChannel final : public PeerChannel {
public:
    // Only ends a side whose peer died: generous, since CI runs these beside the virtual
    // cluster on 2 cores, where a live thread can wait its turn for seconds.
    static constexpr std::chrono::seconds answer_deadline{10};

    struct Shared {
        std::mutex mutex;
        std::condition_variable changed;
        std::vector<std::byte> box[2];
        bool full[2] = {false, false};
    };

    ThreadChannel(std::shared_ptr<Shared> shared, int side) : shared_(std::move(shared)), side_(side) {}

    void exchange(std::span<const std::byte> mine, std::span<std::byte> theirs) override {
        std::unique_lock lock(shared_->mutex);
        wait(lock, [&] { return !shared_->full[side_]; });
        shared_->box[side_].assign(mine.begin(), mine.end());
        shared_->full[side_] = true;
        shared_->changed.notify_all();
        wait(lock, [&] { return shared_->full[1 - side_]; });
        std::copy_n(shared_->box[1 - side_].begin(), std::min(theirs.size(), shared_->box[1 - side_].size()), theirs.begin());
        shared_->full[1 - side_] = false;
        shared_->changed.notify_all();
    }

private:
    template <typename Ready>
    void wait(std::unique_lock<std::mutex>& lock, Ready ready) {
        if (!shared_->changed.wait_for(lock, answer_deadline, ready))
            throw VerbsError(fmt::format("thread channel: the other side did not answer within {} s", answer_deadline.count()));
    }

    std::shared_ptr<Shared> shared_;
    int side_;
};

template <typename T>
struct SideOutcome {
    std::optional<T> value;
    std::string error;  // what() of the exception the side threw, empty when none
};

// Runs body(channel, side) for side 0 (the initiator) and side 1 on two threads.
template <typename T>
std::pair<SideOutcome<T>, SideOutcome<T>> run_both_sides(const std::function<T(PeerChannel&, int)>& body) {
    auto shared = std::make_shared<ThreadChannel::Shared>();
    SideOutcome<T> outcomes[2];
    std::vector<std::thread> threads;
    for (int side = 0; side < 2; ++side)
        threads.emplace_back([&, side] {
            ThreadChannel channel(shared, side);
            try {
                outcomes[side].value = body(channel, side);
            } catch (const std::exception& error) {
                outcomes[side].error = error.what();
            }
        });
    for (auto& thread : threads) thread.join();
    return {outcomes[0], outcomes[1]};
}

}  // namespace shakedown::ib::testing
