#include "ib/pair/mismatch_notes.hpp"

#include <fmt/format.h>

#include <cstring>

namespace shakedown::ib {
namespace {

struct MismatchNote {  // fixed size: crosses the channel as plain bytes
    std::uint32_t count = 0;
    char first[240] = {};
};

}  // namespace

std::vector<std::string> merge_with_peer(PeerChannel& channel, const std::vector<std::string>& mine) {
    MismatchNote note;
    note.count = static_cast<std::uint32_t>(mine.size());
    if (!mine.empty()) std::strncpy(note.first, mine.front().c_str(), sizeof(note.first) - 1);
    const MismatchNote theirs = channel.swap(note);
    auto merged = mine;
    if (theirs.count == 1) merged.push_back(fmt::format("peer saw: {}", theirs.first));
    if (theirs.count > 1) merged.push_back(fmt::format("peer saw: {} (and {} more)", theirs.first, theirs.count - 1));
    return merged;
}

}  // namespace shakedown::ib
