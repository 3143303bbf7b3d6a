// The partition keys (PKeys) of one RDMA port, from sysfs <port_dir>/pkeys/<index> (one file per
// table entry, "0xffff"): read once when the port's telemetry source starts, recorded as the port
// table's attributes (telemetry/rdma_port_names.hpp), compared across nodes by the analyzer
// (rules/health/pkey_rule.hpp). The subnet manager programs the table; nodes that disagree cannot talk
// in the partitions only some of them hold.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace shakedown {

struct PkeyTable {
    // The valid entries (low 15 bits not zero; the top bit is the membership, full or limited),
    // sorted, each once. Empty only when every entry was read and none is valid.
    std::vector<std::uint16_t> valid;
    // Set when the table could not be read (no pkeys folder, an entry that cannot be read or is
    // not a number): which file and why. Then `valid` says nothing: not available, never empty.
    std::optional<std::string> not_available;
};

PkeyTable read_pkey_table(const std::filesystem::path& port_dir);

// "0x7fff,0xffff" (lower-case hex, four digits, sorted); "none" for a readable table without a
// valid entry.
std::string format_pkeys(const std::vector<std::uint16_t>& pkeys);

}  // namespace shakedown
