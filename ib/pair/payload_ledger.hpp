// The payload bookkeeping both RDMA pair sides (verbs and UCX) share. Every message of a
// validation pass is written and checked through it, so it counts what was validated, keeps one
// note per pass of the first mismatch, plants the corruption a test asks for, and counts any
// payload access made while a timed loop runs: there must be none, since the timed loops move
// one fixed payload and never look at it (as OSU and perftest time the transport).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shakedown::ib {

class PayloadLedger {
public:
    // `transport` opens each mismatch note ("" for verbs, "UCX " for UCX); `corrupt` plants a
    // flipped first byte in the first message of every validation pass, which the receiver must catch.
    PayloadLedger(std::string transport, bool corrupt) : transport_(std::move(transport)), corrupt_(corrupt) {}

    // While one lives, payload accesses count as made inside a timed loop.
    class TimedLoop {
    public:
        explicit TimedLoop(PayloadLedger& ledger) : ledger_(ledger) { ledger_.timing_ = true; }
        ~TimedLoop() { ledger_.timing_ = false; }
        TimedLoop(const TimedLoop&) = delete;
        TimedLoop& operator=(const TimedLoop&) = delete;

    private:
        PayloadLedger& ledger_;
    };

    // A new validation pass: its first mismatch is noted again.
    void begin_pass() { noted_ = false; }

    // Writes message `seed` into `message` (corrupted if it is the pass's first and a fault is planted).
    void provide(std::span<std::byte> message, std::uint64_t seed, bool first_of_pass = false);

    // Any other write into a payload buffer (a marker that shows a transfer that never landed).
    void touch() {
        if (timing_) ++timed_accesses_;
    }

    // Checks an arrived message against `seed`; `what` names the operation and loop, `number` the
    // message within its pass.
    void check(std::span<const std::byte> message, std::uint64_t seed, std::string_view what, int number);

    const std::vector<std::string>& mismatches() const { return mismatches_; }
    int validated() const { return validated_; }
    int timed_accesses() const { return timed_accesses_; }

private:
    std::string transport_;
    bool corrupt_;
    std::vector<std::string> mismatches_;
    bool noted_ = false;
    bool timing_ = false;
    int validated_ = 0;
    int timed_accesses_ = 0;
};

}  // namespace shakedown::ib
