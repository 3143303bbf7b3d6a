#include "bench/schedule_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace shakedown::bench {
namespace {

double parameter(const Measured* m, const std::string& name, double fallback) {
    if (m == nullptr) return fallback;
    const auto found = m->parameters.find(name);
    if (found == m->parameters.end()) return fallback;
    try {
        return std::stod(found->second);
    } catch (const std::exception&) {
        return fallback;
    }
}

// One ring-shift round of allpairs over `ranks` ranks, as mpi/allpairs/ring_shift.cpp runs it: timed and
// warm-up ping-pongs plus one validation exchange, the windows plus one validation window and the
// acknowledgements (allpairs_spec.cpp's defaults where the run did not record a value).
struct ShiftTraffic {
    double messages = 0.0;
    double bytes = 0.0;
};
ShiftTraffic allpairs_shift(const Measured* m, double ranks) {
    const double pings = parameter(m, "latency_warmup", 5) + parameter(m, "latency_iterations", 50) + 1;
    const double windows = parameter(m, "bandwidth_warmup", 1) + parameter(m, "bandwidth_iterations", 5);
    const double window = parameter(m, "bandwidth_window", 16);
    const double latency_bytes = parameter(m, "latency_bytes", 8);
    const double bandwidth_bytes = parameter(m, "bandwidth_bytes", 1 << 20);
    return {ranks * (2 * pings + window * (windows + 1) + windows),
            ranks * (2 * pings * latency_bytes + window * (windows + 1) * bandwidth_bytes)};
}

double allpairs_ranks(const Layout& at, AllpairsScope scope) {
    return static_cast<double>(scope == AllpairsScope::nodes ? at.nodes : at.ranks());
}

double allpairs_rounds(const Measured* m, const Layout& at, const AllpairsPlan& plan) {
    const long participants = static_cast<long>(allpairs_ranks(at, plan.scope));
    return static_cast<double>(allpairs_shift_count(participants, plan.pairs_per_node)) * parameter(m, "rounds", 1);
}

}  // namespace

AllpairsPlan plan_of(const Measured* m) {
    AllpairsPlan plan;
    if (m == nullptr) return plan;
    const auto scope = m->parameters.find("scope");
    if (scope != m->parameters.end() && scope->second == "nodes") plan.scope = AllpairsScope::nodes;
    const double peers = parameter(m, "pairs_per_node", 0);  // "auto" does not parse: every peer
    if (peers >= 1) plan.pairs_per_node = static_cast<long>(peers);
    return plan;
}

long allpairs_shift_count(long participants, std::optional<long> pairs_per_node) {
    if (participants < 2) return 0;
    if (!pairs_per_node || *pairs_per_node >= participants - 1) return participants - 1;
    return 2 * ((std::max(1L, *pairs_per_node) + 1) / 2);
}

int local_then_ring_round_count(const Layout& at) {
    const int local = at.gpus_per_node >= 2 ? 1 : 0;
    if (at.nodes < 2) return local;
    if (at.nodes == 2) return local + 1;  // one leader pair
    return local + (at.nodes % 2 == 0 ? 2 : 3);
}

Estimate allpairs_estimate(const Measured* m, const Layout& at, const AllpairsPlan& plan) {
    std::string name = plan.scope == AllpairsScope::nodes ? "allpairs, scope nodes" : "allpairs";
    if (plan.pairs_per_node) name += ", " + std::to_string(*plan.pairs_per_node) + " peers";
    Estimate e{name, allpairs_rounds(m, at, plan), {}, {}, {}, "no allpairs in the run folder"};
    const auto shift = allpairs_shift(m, allpairs_ranks(at, plan.scope));
    e.messages = e.rounds * shift.messages;
    e.bytes = e.rounds * shift.bytes;
    if (m != nullptr && allpairs_rounds(m, m->layout, plan_of(m)) >= 1) {
        const double per_round = m->seconds / allpairs_rounds(m, m->layout, plan_of(m));
        e.seconds = e.rounds * per_round;
        e.basis = "rounds x " + std::to_string(per_round * 1e3).substr(0, 6) + " ms per measured round";
    }
    return e;
}

Estimate pair_rounds_estimate(const std::string& test, const Measured* m, const Layout& at) {
    Estimate e{test, static_cast<double>(local_then_ring_round_count(at)), {}, {}, {}, "no " + test + " in the run folder"};
    if (m != nullptr) {
        const int measured_rounds = std::max(1, local_then_ring_round_count(m->layout));
        e.seconds = e.rounds * m->seconds / measured_rounds;
        e.basis = "rounds x the measured round (" + std::to_string(measured_rounds) + " measured)";
    }
    return e;
}

Estimate congestion_estimate(const Measured* m, const Layout& at) {
    // Two phases of `rings` rings each (a run folder from before the parameter measured one ring).
    const double rings = m != nullptr ? parameter(m, "rings", 1) : 3;
    Estimate e{"congestion", 2 * rings, {}, {}, {}, "no congestion in the run folder"};
    // The measuring half's ring traffic (the congestors run for as long as it takes).
    const double measuring = std::floor(static_cast<double>(at.ranks()) / 2.0);
    const double latency_steps = parameter(m, "latency_warmup", 20) + parameter(m, "latency_iterations", 200);
    const double windows = parameter(m, "bandwidth_warmup", 2) + parameter(m, "bandwidth_iterations", 20);
    const double window = parameter(m, "bandwidth_window", 8);
    const double per_phase_messages = measuring * (2 * latency_steps + window * windows);
    e.messages = 2 * rings * per_phase_messages;
    e.bytes = 2 * rings * measuring *
              (2 * latency_steps * parameter(m, "latency_bytes", 8) + window * windows * parameter(m, "bandwidth_bytes", 131072));
    if (m != nullptr) {
        e.seconds = m->seconds;
        e.basis = "the measured time (fixed iteration counts)";
    }
    return e;
}

Estimate nccl_estimate(const Layout& at, const NcclAssumptions& assumed) {
    // nccl_spec.cpp's full-suite sweep: 8 B to 8 GiB by 2, 25 timed + warm-up launches each, 7 collectives.
    const double p = static_cast<double>(at.ranks());
    const double launches_per_size = 20 + 5;
    // Bytes one rank sends per launch of S (ring algorithms, nccl-tests' bus factors): all_reduce
    // 2(P-1)/P, all_gather, reduce_scatter and alltoall (P-1)/P, broadcast, reduce and sendrecv 1.
    const double factors = 2 * (p - 1) / p + 3 * (p - 1) / p + 3;
    Estimate e{"nccl", 0, 0.0, 0.0, 0.0, "assumed " + std::to_string(static_cast<int>(assumed.latency_us)) + " us and " +
                                            std::to_string(static_cast<int>(assumed.busbw_gbs)) + " GB/s bus bandwidth (no GPU here)"};
    for (double size = 8; size <= 8.0 * 1024 * 1024 * 1024; size *= 2) {
        e.rounds += 7 * launches_per_size;
        *e.bytes += launches_per_size * p * factors * size;
        *e.messages += launches_per_size * p * (7 - 3 + 3 * (p - 1));  // ring steps; alltoall: P-1 peers
        *e.seconds += launches_per_size * (7 * assumed.latency_us * 1e-6 + factors * size / (assumed.busbw_gbs * 1e9));
    }
    return e;
}

Estimate confirmation_estimate(const Measured* allpairs, const Layout& at, long flagged_nodes, long peers_per_node,
                               const AllpairsPlan& plan) {
    const Layout subset{std::min(at.nodes, flagged_nodes * (1 + peers_per_node)), at.gpus_per_node};
    Estimate e = allpairs_estimate(allpairs, subset, plan);
    e.test = "confirmation (" + e.test + " on " + std::to_string(subset.nodes) + " nodes)";
    return e;
}

}  // namespace shakedown::bench
