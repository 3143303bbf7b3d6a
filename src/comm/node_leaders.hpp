// The node-level tests (storage, network_mtu, topology's node part) do their work once per
// node, on its leader. These helpers derive the leaders among the ranks that run the test
// (ctx.comm(), which may be a subset of the world after waivers).
#pragma once

#include "core/communicator.hpp"
#include "core/run_context.hpp"

#include <string>
#include <vector>

namespace shakedown::comm {

// Node leaders among ctx.comm(): the lowest rank of ctx.comm() on each node. Invalid
// (MPI_COMM_NULL) on the other ranks. Collective over ctx.comm().
Communicator leaders_of(const RunContext& ctx);

// Every rank of ctx.comm() leaves together once the leaders' work is done. The others wait in a
// barrier polled with sleeps, not in a blocking (spinning) one: their cores stay free for the
// leaders' measurements where ranks share cores. `phase` is what the others say they wait for.
void wait_for_leaders(const RunContext& ctx, bool leader, const std::string& phase);

// Strings from every member, in rank order (any length). Collective over `comm`.
std::vector<std::string> allgather_text(MPI_Comm comm, const std::string& mine);

}  // namespace shakedown::comm
