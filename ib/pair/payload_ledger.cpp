#include "ib/pair/payload_ledger.hpp"

#include "comm/payload.hpp"

#include <fmt/format.h>

namespace shakedown::ib {

void PayloadLedger::provide(std::span<std::byte> message, std::uint64_t seed, bool first_of_pass) {
    touch();
    comm::fill_payload(message, seed);
    if (corrupt_ && first_of_pass) message[0] = ~message[0];
}

void PayloadLedger::check(std::span<const std::byte> message, std::uint64_t seed, std::string_view what, int number) {
    touch();
    ++validated_;
    const auto bad = comm::first_mismatch(message, seed);
    if (!bad || noted_) return;
    noted_ = true;  // one note per pass: operation, size and loop
    mismatches_.push_back(fmt::format("payload mismatch in {}{} {} B, message {}: byte {} is 0x{:02x}, expected 0x{:02x}",
                                      transport_, what, message.size(), number, *bad, static_cast<unsigned>(message[*bad]),
                                      static_cast<unsigned>(comm::expected_byte(seed, *bad))));
}

}  // namespace shakedown::ib
