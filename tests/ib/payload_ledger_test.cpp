// The payload bookkeeping of the RDMA pair sides (ib/pair/payload_ledger.hpp): what it counts, what
// it notes, and the corruption it plants.
#include "comm/payload.hpp"
#include "ib/pair/payload_ledger.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace shakedown::ib {
namespace {

TEST(PayloadLedger, AGoodMessageIsCountedAndNotNoted) {
    PayloadLedger ledger("", false);
    std::vector<std::byte> message(64);
    ledger.provide(message, 7, true);
    ledger.check(message, 7, "write latency", 0);
    EXPECT_EQ(ledger.validated(), 1);
    EXPECT_TRUE(ledger.mismatches().empty());
    EXPECT_EQ(ledger.timed_accesses(), 0);
}

TEST(PayloadLedger, ThePlantedCorruptionIsTheFirstMessageOfAPassOnly) {
    PayloadLedger ledger("UCX ", true);
    std::vector<std::byte> message(64);
    ledger.provide(message, 7, false);
    ledger.check(message, 7, "put bandwidth", 1);
    EXPECT_TRUE(ledger.mismatches().empty()) << "a later message of the pass was corrupted";
    ledger.provide(message, 7, true);
    ledger.check(message, 7, "put bandwidth", 0);
    ASSERT_EQ(ledger.mismatches().size(), 1U);
    EXPECT_EQ(ledger.mismatches()[0].rfind("payload mismatch in UCX put bandwidth 64 B, message 0: byte 0 is 0x", 0), 0U)
        << ledger.mismatches()[0];
}

TEST(PayloadLedger, OneNotePerPass) {
    PayloadLedger ledger("", false);
    std::vector<std::byte> message(16);
    comm::fill_payload(message, 1);
    ledger.check(message, 2, "send one-way", 0);
    ledger.check(message, 2, "send one-way", 1);
    EXPECT_EQ(ledger.mismatches().size(), 1U);
    ledger.begin_pass();
    ledger.check(message, 2, "send both ways", 0);
    EXPECT_EQ(ledger.mismatches().size(), 2U);
    EXPECT_EQ(ledger.validated(), 3);
}

TEST(PayloadLedger, AccessesInsideATimedLoopAreCounted) {
    PayloadLedger ledger("", false);
    std::vector<std::byte> message(16);
    ledger.provide(message, 3);
    {
        const PayloadLedger::TimedLoop timed(ledger);
        ledger.provide(message, 3);
        ledger.touch();
        ledger.check(message, 3, "write latency", 0);
    }
    ledger.check(message, 3, "write latency", 0);
    EXPECT_EQ(ledger.timed_accesses(), 3);
}

}  // namespace
}  // namespace shakedown::ib
