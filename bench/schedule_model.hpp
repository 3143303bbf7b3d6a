// The schedule simulator's model (bench/schedule_simulator_main.cpp): for N nodes of G GPUs, the
// rounds, messages and bytes of each communication test's schedule, from the same parameters the
// test declares, and an estimated wall time from the cost of one round measured in a real run.
// What scales how:
// - allpairs: (P-1) ring-shift rounds per repetition over the P ranks that take part (scope ranks:
//   every rank; scope nodes: one leader per node, P = N), every such rank in one pair per round,
//   so a round costs about the same at any P: time = rounds x the measured round. A run's round is
//   its time over the rounds of its own scope and layout. On a fabric a node-scope round moves one
//   stream per NIC where a rank-scope one moves G, so the same round is the conservative case.
// - mpi_pingpong, p2p: the node-local pair and node leaders in a ring: 2 or 3 rounds at any N
//   (3 with an odd node count), one more for the local pairs; time = rounds x the measured round.
// - congestion: two phases of `rings` rings of fixed iteration counts, whatever P: the measured time.
// - nccl: the size sweep, each size's launches on all P ranks (ring traffic per rank); time from
//   an assumed latency and bus bandwidth, since no run here measures NCCL (no GPU).
// - confirmation: the tests of the FAILs awaiting confirmation re-run on the flagged nodes and the
//   peers their evidence rests on (rules/model/confirmation.hpp): allpairs over that subset, in the scope
//   given (the job's confirmation step reuses the run's configuration, so the run's scope).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::bench {

struct Layout {
    long nodes = 1;
    long gpus_per_node = 1;  // ranks per node (one per GPU; 1 for host-only)
    long ranks() const { return nodes * gpus_per_node; }
};

// What a real run measured for one test: its wall time (first start to last end over the
// ranks), its layout and the parameters it recorded.
struct Measured {
    std::string test;
    double seconds = 0.0;
    Layout layout;
    std::map<std::string, std::string> parameters;
};

struct Estimate {
    std::string test;
    double rounds = 0.0;
    std::optional<double> messages;  // nothing where the model does not count them
    std::optional<double> bytes;
    std::optional<double> seconds;   // nothing without a measured round to scale
    std::string basis;               // where the time comes from
};

struct NcclAssumptions {
    double latency_us = 30.0;  // per launch
    double busbw_gbs = 50.0;   // a 400 Gb/s NIC per GPU: the inter-node bound
};

// allpairs' parameters `scope` (every rank, or each node's leader only) and `pairs_per_node` (K
// sampled peers per participant: 2 x ceil(K/2) shifts, mpi/allpairs/shift_schedule.hpp; nothing: all).
enum class AllpairsScope { ranks, nodes };
struct AllpairsPlan {
    AllpairsScope scope = AllpairsScope::ranks;
    std::optional<long> pairs_per_node;
};
// What a run recorded (scope ranks and every peer where it recorded neither: older runs).
AllpairsPlan plan_of(const Measured* m);
// Ring shifts per repetition over `participants` ranks.
long allpairs_shift_count(long participants, std::optional<long> pairs_per_node);

// Rounds of each modelled test at `at`; parameters from `m` (the defaults where `m` lacks one).
// allpairs as `plan` says; its round's cost from `m`'s own recorded plan and layout.
Estimate allpairs_estimate(const Measured* m, const Layout& at, const AllpairsPlan& plan = {});
Estimate pair_rounds_estimate(const std::string& test, const Measured* m, const Layout& at);
Estimate congestion_estimate(const Measured* m, const Layout& at);
Estimate nccl_estimate(const Layout& at, const NcclAssumptions& assumed);
// allpairs again over `flagged_nodes` nodes and `peers_per_node` peers of each (at most all nodes).
Estimate confirmation_estimate(const Measured* allpairs, const Layout& at, long flagged_nodes, long peers_per_node,
                               const AllpairsPlan& plan = {});

// Rounds of the node-local-pair-then-leader-ring schedule (comm::local_then_ring_rounds).
int local_then_ring_round_count(const Layout& at);

}  // namespace shakedown::bench
