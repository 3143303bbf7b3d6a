// Payload mismatches one side of a pair found, traded with the other side so both results
// name them ("peer saw: ..."), as the analyzer reads each rank's result on its own.
#pragma once

#include "ib/pair/peer_channel.hpp"

#include <string>
#include <vector>

namespace shakedown::ib {

// Mine followed by one line summarising the peer's (its first and how many more).
std::vector<std::string> merge_with_peer(PeerChannel& channel, const std::vector<std::string>& mine);

}  // namespace shakedown::ib
