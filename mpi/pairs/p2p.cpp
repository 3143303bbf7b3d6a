// p2p: point-to-point latency (min, median, p99 of the half round trip), streaming bandwidth
// (window of 64 non-blocking sends), bi-directional bandwidth and message rate over a size
// sweep, between the node-local pair and node representatives (or the pairs the user names),
// every message validated.
#include "comm/pair_sweep.hpp"
#include "comm/sizes.hpp"
#include "core/problem_list.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "hardware/network_capacity.hpp"
#include "mpi/pairs/pingpong.hpp"
#include "mpi/pairs/window_bandwidth.hpp"
#include "mpi/specs.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>

namespace shakedown::mpi {
namespace {

struct PairFigures {
    bool intra_node = false;
    std::size_t bytes = 0;
    stats::Summary latency_us;
    double bandwidth_gbs = 0.0;
    double bibandwidth_gbs = 0.0;
    double message_rate_mps = 0.0;  // million messages per second
};

SampleTable p2p_sample_table() { return SampleTable(p2p_spec().samples); }

class P2p final : public Test {
public:
    P2p() : Test(p2p_spec()) {}

    TestResult run(const RunContext& ctx) const override {
        const auto& params = ctx.params();
        const auto sizes = comm::size_sweep(params.integer("min_bytes"), params.integer("max_bytes"), 2);
        const auto latency_counts = comm::iteration_counts(params);
        const comm::IterationCounts bandwidth = bandwidth_counts(params);
        const int window = static_cast<int>(params.integer("window"));

        const comm::PairSweep pairs(ctx.comm(), ctx.session(), [&](const auto& placement) {
            return comm::pairs_or_default(params, placement, ctx.session().world_size(), comm::local_then_ring_rounds);
        });

        TestResult result;
        result.samples = p2p_sample_table();
        result.parameters["pairs_run"] = pairs.description();
        std::vector<PairFigures> mine;
        ProblemList mismatches("payload mismatches");
        pairs.for_each_turn([&](const comm::PairTurn& turn) {
            const auto note = [&](const std::optional<PayloadMismatch>& mismatch, std::string_view what) {
                if (mismatch) mismatches.add(fmt::format("{} ({})", mismatch->describe(turn), what));
            };
            for (const auto bytes : sizes) {
                PairFigures figures;
                figures.intra_node = turn.intra_node();
                figures.bytes = bytes;
                const PingPongSpec latency{bytes, latency_counts.for_size(bytes), ctx.faults().delay_s(),
                                           ctx.faults().corrupt()};
                const auto pingpong = ping_pong(ctx.comm(), turn.peer, turn.initiator, latency);
                note(pingpong.mismatch, "latency");
                figures.latency_us = stats::summarize(pingpong.half_round_trip_us());

                WindowSpec stream{bytes, bandwidth.for_size(bytes), window,
                                  false, ctx.faults().delay_s(),    ctx.faults().corrupt()};
                const auto uni = window_bandwidth(ctx.comm(), turn.peer, turn.initiator, stream);
                note(uni.mismatch, "bandwidth");
                stream.bidirectional = true;
                const auto bi = window_bandwidth(ctx.comm(), turn.peer, turn.initiator, stream);
                note(bi.mismatch, "bi-directional bandwidth");
                figures.bandwidth_gbs = uni.gigabytes_per_s;
                figures.bibandwidth_gbs = bi.gigabytes_per_s;
                figures.message_rate_mps = uni.messages_per_s / 1e6;
                mine.push_back(figures);
                result.samples.add_row({static_cast<double>(bytes), static_cast<double>(turn.peer_world),
                                        turn.intra_node() ? 1.0 : 0.0, figures.latency_us.min, figures.latency_us.median,
                                        figures.latency_us.p99, figures.bandwidth_gbs, figures.bibandwidth_gbs,
                                        figures.message_rate_mps});
            }
        });
        mismatches.fail(result);
        add_metrics(result, mine, sizes.front(), sizes.back(), true, std::nullopt);
        add_metrics(result, mine, sizes.front(), sizes.back(), false, hardware::network_capacity_gbs(ctx.inventory()));
        return result;
    }

private:
    static comm::IterationCounts bandwidth_counts(const TestParams& params) {
        const auto count = [&](const char* name) { return static_cast<int>(params.integer(name)); };
        return {{count("bw_warmup_small"), count("bw_iterations_small")},
                {count("bw_warmup_large"), count("bw_iterations_large")}};
    }

    // The worst of this rank's pairs of one kind: latency at the smallest size, bandwidth at
    // the largest, message rate at the smallest.
    // `bound_gbs`: the nominal of the best pair's bandwidth (inter-node: this node's network capacity).
    static void add_metrics(TestResult& result, const std::vector<PairFigures>& mine, std::size_t smallest,
                            std::size_t largest, bool intra_node, std::optional<double> bound_gbs) {
        const auto prefix = fmt::format("p2p.{}_", intra_node ? "intra_node" : "inter_node");
        const auto worst = [&](std::size_t bytes, auto value, bool higher_is_worse) -> std::optional<double> {
            std::optional<double> found;
            for (const auto& f : mine)
                if (f.intra_node == intra_node && f.bytes == bytes) {
                    const double v = value(f);
                    if (!found || (higher_is_worse ? v > *found : v < *found)) found = v;
                }
            return found;
        };
        if (const auto v = worst(
                smallest, [](const PairFigures& f) { return f.latency_us.median; }, true))
            result.add_metric(prefix + "latency_us", *v);
        if (const auto v = worst(
                smallest, [](const PairFigures& f) { return f.latency_us.p99; }, true))
            result.add_metric(prefix + "latency_p99_us", *v);
        if (const auto v = worst(
                largest, [](const PairFigures& f) { return f.bandwidth_gbs; }, false))
            result.add_metric(prefix + "bandwidth_gbs", *v);
        // The best pair too: a figure above the node's physical bound is not credible.
        if (const auto v = worst(
                largest, [](const PairFigures& f) { return f.bandwidth_gbs; }, true))
            result.add_metric(prefix + "bandwidth_max_gbs", *v, bound_gbs);
        if (const auto v = worst(
                largest, [](const PairFigures& f) { return f.bibandwidth_gbs; }, false))
            result.add_metric(prefix + "bibandwidth_gbs", *v);
        if (const auto v = worst(
                smallest, [](const PairFigures& f) { return f.message_rate_mps; }, false))
            result.add_metric(prefix + "message_rate_mps", *v);
    }
};

}  // namespace

SHAKEDOWN_REGISTER_TEST(P2p);

}  // namespace shakedown::mpi
