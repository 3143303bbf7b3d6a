// `tcp_bandwidth`: TCP throughput between every pair of nodes on each selected Ethernet interface,
// as iperf3 measures it (parallel streams, a fixed time, the receiver's bytes), with every byte
// checked against a known pattern and the senders' counts. The pairs run in rounds where each node
// is in one pair (comm::every_pair_rounds), all pairs of a round at once, so no node's figure is
// shared with a third; per pair: one direction, the other, both at once, then one-byte echoes for
// the round trip. Rank 0's samples are the link matrix the analyzer localizes slow nodes and
// cables from.
#include "comm/node_leaders.hpp"
#include "comm/pairs.hpp"
#include "core/errors.hpp"
#include "core/problem_list.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "core/waiver_reasons.hpp"
#include "health/network/job_interface.hpp"
#include "health/network/tcp_bandwidth_names.hpp"
#include "health/network/tcp_interfaces.hpp"
#include "health/network/tcp_pair.hpp"
#include "health/specs.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <system_error>

namespace shakedown::health {
namespace {

namespace names = tcp_bandwidth_names;

// What one node tells the others before the rounds: its endpoints, or why it has none.
struct NodeCard {
    std::string node, error;
    std::vector<TcpEndpoint> endpoints;
};

std::string card_text(const NodeCard& card) {
    return nlohmann::json{{"node", card.node}, {"error", card.error}, {"endpoints", to_json(card.endpoints)}}.dump();
}

NodeCard card_from(const std::string& text) {
    const auto json = nlohmann::json::parse(text);
    return {json.at("node"), json.at("error"), endpoints_from(json.at("endpoints"))};
}

// The line rate every measured interface of this node shares, where a physical NIC reports it.
std::optional<double> common_line_rate(const std::vector<TcpEndpoint>& mine, const std::vector<std::string>& measured) {
    std::optional<double> rate;
    for (const std::string& interface : measured) {
        const TcpEndpoint* endpoint = endpoint_on(mine, interface);
        if (endpoint == nullptr || !endpoint->line_rate_gbits || (rate && *rate != *endpoint->line_rate_gbits))
            return std::nullopt;
        rate = endpoint->line_rate_gbits;
    }
    return rate;
}

class TcpBandwidth final : public Test {
public:
    TcpBandwidth() : Test(tcp_bandwidth_spec()) {}

    std::optional<std::string> waiver(const RunContext& probe) const override {
        const int nodes = probe.session().identity().node_count;
        if (probe.params().text("scope") == "nodes" && nodes < 2)
            return job_too_small_waiver("2 nodes with scope nodes", fmt::format("this run has {}", nodes));
        return std::nullopt;
    }

    TestResult run(const RunContext& ctx) const override {
        if (ctx.params().text("scope") == "ranks") return measure(ctx, ctx.comm());
        const Communicator leaders = comm::leaders_of(ctx);
        TestResult result;
        if (leaders.valid()) result = measure(ctx, leaders.get());
        else result.parameters["role"] = "not a node leader: the node leaders measure";
        comm::wait_for_leaders(ctx, leaders.valid(), "not a node leader: waiting for the node leaders' TCP rounds");
        return result;
    }

private:
    // Where a listener may be: `first` on (none: a port the kernel picks), `count` ports.
    struct PortRange {
        std::optional<std::int64_t> first;
        std::int64_t count = 1;
    };

    // A listener on the first free port of the range on this address. Every port taken is the
    // node's configuration error, said with the range and the setting to change.
    static TcpListener listen_in(const std::string& ipv4, const PortRange& ports) {
        if (!ports.first) return TcpListener(ipv4, 0);
        const std::int64_t last = std::min<std::int64_t>(*ports.first + ports.count - 1, 65535);
        for (std::int64_t port = *ports.first; port <= last; ++port) {
            try {
                return TcpListener(ipv4, static_cast<std::uint16_t>(port));
            } catch (const std::system_error& error) {
                if (error.code() != std::errc::address_in_use) throw;
            }
        }
        throw InputError(last == *ports.first
                             ? fmt::format("port {} is taken on {}: choose another with params.tcp_bandwidth.port",
                                           *ports.first, ipv4)
                             : fmt::format("ports {}-{} are all taken on {}: choose others with "
                                           "params.tcp_bandwidth.port and port_range",
                                           *ports.first, last, ipv4));
    }

    // This node's listeners and what every node of the test told the others.
    struct Parties {
        NodeCard mine;
        std::vector<TcpListener> listeners;  // one per endpoint of mine, in its order
        std::vector<NodeCard> cards;         // every member's, in rank order
    };

    // Listens on every selected interface, then exchanges the cards. A node that cannot take part
    // is refused (exit 2: a setting or the node's configuration); the others were not measured
    // either, for the same cause. Collective over `comm`.
    static Parties listen_and_exchange(const RunContext& ctx, MPI_Comm comm) {
        Parties parties{{ctx.session().identity().node_name, "", {}}, {}, {}};
        NodeCard& mine = parties.mine;
        const PortRange ports{ctx.params().optional_integer("port"), ctx.params().integer("port_range")};
        try {
            mine.endpoints = select_tcp_interfaces(ctx.params().names("interfaces"), inventory_network(ctx.inventory()));
            for (TcpEndpoint& endpoint : mine.endpoints) {
                parties.listeners.push_back(listen_in(endpoint.ipv4, ports));
                endpoint.port = parties.listeners.back().port();
            }
        } catch (const std::system_error& error) {
            mine.error = fmt::format("cannot listen: {}", error.what());
        } catch (const std::exception& error) {
            mine.error = error.what();
        }
        for (const std::string& text : comm::allgather_text(comm, card_text(mine))) parties.cards.push_back(card_from(text));
        if (!mine.error.empty()) throw InputError(fmt::format("tcp_bandwidth on {}: {}", mine.node, mine.error));
        for (const NodeCard& card : parties.cards)
            if (!card.error.empty())
                throw CausedError(fmt::format("tcp_bandwidth not measured: {} could not take part: {}", card.node,
                                              card.error),
                                  Cause::configuration);
        return parties;
    }

    static PairSettings settings_of(const RunContext& ctx) {
        PairSettings settings;
        settings.streams = static_cast<int>(ctx.params().integer("streams"));
        settings.seconds = ctx.params().real("seconds");
        settings.round_trips = static_cast<int>(ctx.params().integer("round_trips"));
        settings.corrupt = ctx.faults().corrupt();
        settings.delay_s = ctx.faults().delay_s();
        return settings;
    }

    static TestResult measure(const RunContext& ctx, MPI_Comm comm) {
        int me = 0, size = 1;
        MPI_Comm_rank(comm, &me);
        MPI_Comm_size(comm, &size);
        const auto placement = comm::gather_placement(comm, ctx.session());
        const auto at = [](int rank) { return static_cast<std::size_t>(rank); };
        TestResult result;
        result.samples = SampleTable(tcp_bandwidth_spec().samples);
        const Parties parties = listen_and_exchange(ctx, comm);
        std::vector<std::vector<TcpEndpoint>> endpoints;
        for (const NodeCard& card : parties.cards) endpoints.push_back(card.endpoints);
        const std::vector<std::string> measured = interfaces_in_common(endpoints);
        if (me == 0)
            result.parameters[std::string(names::interfaces_measured)] = fmt::format("{}", fmt::join(measured, ","));
        if (measured.empty()) {
            result.fail("tcp_bandwidth: no interface that every node has an IPv4 address on");
            return result;
        }

        const PairSettings settings = settings_of(ctx);
        const comm::PairRounds rounds = comm::every_pair_rounds(size);
        result.parameters["rounds"] = std::to_string(rounds.size());
        // A party by its node, and by its rank where several ranks of one node take part.
        const bool by_rank = ctx.params().text("scope") == "ranks";
        const auto party = [&](int rank) {
            const std::string& node = parties.cards[at(rank)].node;
            return by_rank ? fmt::format("{} rank {}", node, placement[at(rank)].world_rank) : node;
        };
        LinkFigures figures;
        ProblemList problems("transfer problems");
        for (std::size_t interface = 0; interface < measured.size(); ++interface) {
            const TcpEndpoint* own = endpoint_on(parties.mine.endpoints, measured[interface]);
            const TcpListener& listener = parties.listeners[static_cast<std::size_t>(own - parties.mine.endpoints.data())];
            for (std::size_t round = 0; round < rounds.size(); ++round) {
                const auto role = comm::role_in(rounds[round], me);
                ctx.session().activity().set_phase(fmt::format("{} round {} of {}{}", measured[interface], round + 1,
                                                               rounds.size(),
                                                               role ? ": with " + party(role->peer) : ": idle"));
                PairJob job{comm, me, role ? role->peer : -1, role && role->initiator,
                            static_cast<std::uint32_t>((interface * rounds.size() + round) * phases_per_pair)};
                if (role) {
                    job.peer_endpoint = *endpoint_on(endpoints[at(role->peer)], measured[interface]);
                    job.me_name = party(me);
                    job.peer_name = party(role->peer);
                    job.interface = measured[interface];
                }
                const PairOutcome outcome = measure_pair(job, listener, settings);
                for (const std::string& problem : outcome.problems) problems.add(problem);
                if (!role) continue;
                figures.add(outcome);
                const bool intra = placement[at(role->peer)].node_index == placement[at(me)].node_index;
                figures.intra_node = figures.intra_node || intra;
                // The direction this rank received, in names::sample_columns()' order.
                figures.rows.push_back({static_cast<double>(placement[at(role->peer)].world_rank),
                                        static_cast<double>(placement[at(me)].world_rank), intra ? 1.0 : 0.0,
                                        outcome.rtt_p50_us / 2.0, outcome.received_alone_gbits / 8.0,
                                        static_cast<double>(interface), outcome.received_duplex_gbits / 8.0,
                                        outcome.rtt_p99_us});
            }
        }
        for (auto& row : gather_rows(comm, figures.rows)) result.samples.add_row(std::move(row));
        // A line rate bounds only what crossed the wire: ranks of one node talk through its own stack.
        add_metrics(result, figures, figures.intra_node ? std::nullopt : common_line_rate(parties.mine.endpoints, measured));
        problems.fail(result, "tcp_bandwidth: wrong or lost bytes or failed connections: ");
        return result;
    }

    static void add_metrics(TestResult& result, const LinkFigures& figures, std::optional<double> line_rate) {
        if (figures.send_alone.empty()) return;
        const auto lowest = [](const std::vector<double>& values) {
            return *std::min_element(values.begin(), values.end());
        };
        const auto highest = [](const std::vector<double>& values) {
            return *std::max_element(values.begin(), values.end());
        };
        result.add_metric(std::string(names::send_gbits_min), lowest(figures.send_alone), line_rate);
        result.add_metric(std::string(names::send_gbits_median), stats::median(figures.send_alone), line_rate);
        result.add_metric(std::string(names::send_gbits_max), highest(figures.send_alone), line_rate);
        result.add_metric(std::string(names::receive_gbits_min), lowest(figures.receive_alone), line_rate);
        result.add_metric(std::string(names::receive_gbits_median), stats::median(figures.receive_alone), line_rate);
        result.add_metric(std::string(names::duplex_gbits_min), lowest(figures.duplex), line_rate);
        std::vector<double> links_gbs;
        for (const auto* direction : {&figures.send_alone, &figures.receive_alone})
            for (const double gbits : *direction) links_gbs.push_back(gbits / 8.0);
        result.add_metric(std::string(names::link_min_gbs), lowest(links_gbs));
        result.add_metric(std::string(names::link_median_gbs), stats::median(links_gbs));
        if (!figures.rtt_p50_us.empty()) {
            result.add_metric(std::string(names::rtt_p50_us), stats::median(figures.rtt_p50_us));
            result.add_metric(std::string(names::rtt_p99_us), highest(figures.rtt_p99_us));
        }
    }
};

SHAKEDOWN_REGISTER_TEST(TcpBandwidth);

}  // namespace
}  // namespace shakedown::health
