// `network_mtu`: every interface's MTU and speed against what the config expects, agreement
// of the job interface's MTU across nodes, and the path MTU from each node leader to the
// next (a ring over the leaders) measured with don't-fragment UDP probes, so a jumbo-frame
// mismatch on one node or one switch port is named. One leader alone probes itself.
#include "comm/node_leaders.hpp"
#include "health/network/job_interface.hpp"
#include "health/network/mtu_expectations.hpp"
#include "health/specs.hpp"
#include "health/network/path_mtu_probe.hpp"

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

namespace shakedown::health {
namespace {

long long mtu_of(const nlohmann::json& network, const std::string& name) {
    for (const auto& interface : network)
        if (interface.value("name", "") == name) return interface.value("mtu", -1LL);
    return -1;
}

MtuExpectations expectations_from(const TestParams& params) {
    MtuExpectations expected;
    if (const auto mtu = params.optional_integer("expected_mtu")) expected.mtu = *mtu;
    if (const auto speed = params.optional_integer("expected_speed_mbps")) expected.speed_mbps = *speed;
    expected.glob = params.optional_text("interfaces").value_or("");
    expected.per_interface = parse_interface_mtu(params.text("interface_mtu"));
    return expected;
}

// What each leader tells the others, exchanged as JSON text.
struct LeaderCard {
    std::string node, interface, ipv4, error;
    long long mtu = -1;
    int port = 0;
};

nlohmann::json to_json(const LeaderCard& card) {
    return {{"node", card.node}, {"interface", card.interface}, {"ipv4", card.ipv4},
            {"error", card.error}, {"mtu", card.mtu},           {"port", card.port}};
}

LeaderCard card_from(const nlohmann::json& j) {
    return {j.at("node"), j.at("interface"), j.at("ipv4"), j.at("error"), j.at("mtu").get<long long>(),
            j.at("port").get<int>()};
}

class NetworkMtuTest final : public Test {
public:
    NetworkMtuTest() : Test(network_mtu_spec()) {}

    // interface_mtu is a YAML map in text: what does not parse is the driver's exit 2.
    void check_on_node(const TestParams& params) const override { (void)expectations_from(params); }

    TestResult run(const RunContext& ctx) const override {
        TestResult result;
        const Communicator leaders = comm::leaders_of(ctx);
        if (!leaders.valid()) {
            result.parameters["role"] = "not a node leader: the node leader measures";
            return result;
        }
        const nlohmann::json network = inventory_network(ctx.inventory());
        record_interfaces(result, network);

        LeaderCard mine;
        mine.node = ctx.session().identity().node_name;
        try {
            const JobInterface job = choose_job_interface(ctx.params().optional_text("interface").value_or(""), network);
            mine.interface = job.name;
            mine.ipv4 = job.ipv4;
            // The kernel's answer for this namespace; the inventory (sysfs) only as a fallback,
            // and a disagreement is recorded: it means /sys shows another network namespace.
            const long long listed = mtu_of(network, job.name);
            mine.mtu = job.mtu > 0 ? job.mtu : listed;
            if (job.mtu > 0 && listed != job.mtu)
                result.parameters["job_interface_sysfs_mtu"] =
                    fmt::format("{} (from /sys/class/net, another network namespace: not used)", listed);
            result.parameters["job_interface"] = job.name;
            result.parameters["job_interface_chosen_by"] = job.chosen_by;
        } catch (const std::exception& error) {
            mine.error = error.what();
            result.fail(fmt::format("network_mtu: {}", error.what()));
        }

        const InterfaceVerdict verdict = judge_interfaces(network, expectations_from(ctx.params()), mine.interface);
        result.parameters["interfaces_checked"] = fmt::format("{}", fmt::join(verdict.checked, ","));
        for (const auto& problem : verdict.problems) result.fail(fmt::format("{}: {}", mine.node, problem));

        // The responder answers the previous leader's probes while we probe the next one.
        const EchoResponder responder;
        mine.port = responder.port();
        std::vector<LeaderCard> cards;
        for (const auto& text : comm::allgather_text(leaders.get(), to_json(mine).dump())) cards.push_back(card_from(nlohmann::json::parse(text)));

        judge_agreement(result, cards, leaders.rank());
        if (mine.error.empty()) probe_next(ctx, result, cards, leaders.rank());
        MPI_Barrier(leaders.get());  // every probe done before any responder stops
        return result;
    }

private:
    static void record_interfaces(TestResult& result, const nlohmann::json& network) {
        result.samples = SampleTable(network_mtu_spec().samples);
        std::vector<std::string> listing;
        for (std::size_t i = 0; i < network.size(); ++i) {
            const auto& interface = network[i];
            result.samples.add_row({static_cast<double>(i), static_cast<double>(interface.value("mtu", -1LL)),
                                    static_cast<double>(interface.value("speed_mbps", -1LL)),
                                    interface.value("operstate", "") == "up" ? 1.0 : 0.0});
            listing.push_back(fmt::format("{}={}", interface.value("name", "?"), interface.value("mtu", -1LL)));
        }
        result.parameters["interface_mtus"] = fmt::format("{}", fmt::join(listing, ","));
    }

    // A node whose job-interface MTU differs from the other nodes' fails, named.
    static void judge_agreement(TestResult& result, const std::vector<LeaderCard>& cards, int me) {
        std::vector<std::pair<std::string, long long>> values;
        for (const auto& card : cards)
            if (card.error.empty()) values.emplace_back(card.node, card.mtu);
        for (const auto& outlier : find_outliers(values))
            if (outlier.node == cards[static_cast<std::size_t>(me)].node)
                result.fail(fmt::format("{}: {} MTU {} differs from the other nodes' {}", outlier.node,
                                        cards[static_cast<std::size_t>(me)].interface, outlier.value, outlier.norm));
    }

    static void probe_next(const RunContext& ctx, TestResult& result, const std::vector<LeaderCard>& cards, int me) {
        const auto& self = cards[static_cast<std::size_t>(me)];
        const auto& peer = cards[static_cast<std::size_t>((me + 1) % static_cast<int>(cards.size()))];
        result.parameters["path_peer"] = fmt::format("{} ({} {})", peer.node, peer.interface, peer.ipv4);
        if (!peer.error.empty()) {
            result.parameters["path_mtu"] = "not measured: the peer has no usable interface";
            return;
        }
        ProbeSettings settings;
        settings.max_payload = static_cast<int>(std::min<long long>(self.mtu, 65535) - ipv4_udp_header_bytes);
        settings.max_payload = std::min(settings.max_payload, max_udp_payload);
        settings.timeout_ms = static_cast<int>(ctx.params().integer("probe_timeout_ms"));
        settings.attempts = static_cast<int>(ctx.params().integer("probe_attempts"));
        const PathMtu path = probe_path_mtu(peer.ipv4, static_cast<std::uint16_t>(peer.port), settings);
        result.parameters["path_probes_sent"] = std::to_string(path.probes_sent);
        // The largest IPv4 packet is 65535 bytes: loopback's 65536 cannot be filled.
        const long long expected = std::min({self.mtu, peer.mtu, 65535LL});
        result.add_metric("network_mtu.interface_mtu_bytes", static_cast<double>(self.mtu));
        if (!path.reachable()) {
            result.fail(fmt::format("{}: no don't-fragment probe reached {} at {}:{}", self.node, peer.node, peer.ipv4, peer.port));
            return;
        }
        result.add_metric("network_mtu.path_mtu_bytes", path.path_mtu(), static_cast<double>(expected));
        if (path.path_mtu() < expected)
            result.fail(fmt::format("path MTU {} -> {} is {} while both interfaces have >= {}: a hop between them carries less",
                                    self.node, peer.node, path.path_mtu(), expected));
    }
};

SHAKEDOWN_REGISTER_TEST(NetworkMtuTest);

}  // namespace
}  // namespace shakedown::health
