#include "analysis/rules/links/link_localization.hpp"

#include "stats/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace shakedown::analysis {
namespace {

// Evidence lists are cut here: a reason is one line, summary.json has every link.
constexpr std::size_t listed_links = 4;

std::vector<std::string> node_order(const Observations& observations) {
    std::vector<std::string> nodes;
    for (const NodeRow& node : observations.nodes())
        if (node.name != unknown_node) nodes.push_back(node.name);
    return nodes;
}

const RankIdentity& first_rank_of(const Observations& observations, const std::string& node) {
    for (const NodeRow& row : observations.nodes())
        if (row.name == node && !row.ranks.empty()) return *observations.rank(row.ranks.front());
    return observations.ranks().front();
}

std::string join(const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
    return text;
}

// "node0004<->node0001 0.0119 GB/s (0.04)", or one direction: "node0001->node0002 0.02 GB/s
// (0.02; the reverse 1.00)"
std::string link_text(const NodeLink& link) {
    if (link.one_direction())
        return fmt::format("{} {} GB/s ({:.2f}; the reverse {:.2f})", link.name(), format_number(link.bandwidth_gbs),
                           link.ratio, link.reverse_ratio);
    return fmt::format("{} {} GB/s ({:.2f})", link.name(), format_number(link.bandwidth_gbs), link.ratio);
}

// A link, or a culprit's slow links, that degraded during the run (their rounds split, the later
// ones slow): from which round and what they read before; "" when none did.
std::string degraded_text(const std::vector<NodeLink>& links) {
    int first = 0;
    int last = 0;
    int rounds = 0;
    std::vector<double> before;
    for (const NodeLink& link : links) {
        if (link.level == Level::pass) continue;
        if (!link.changed() || !(link.before_gbs > link.bandwidth_gbs)) return "";
        first = first == 0 ? link.changed_from_round : std::min(first, link.changed_from_round);
        last = std::max(last, link.changed_from_round);
        rounds = std::max(rounds, link.rounds);
        before.push_back(link.before_gbs);
    }
    if (before.empty()) return "";
    const std::string from = first == last ? fmt::format("round {}", first + 1)
                                           : fmt::format("rounds {}-{}", first + 1, last + 1);
    return fmt::format("; degraded during the run: slow from {} of {}, {} GB/s before", from, rounds,
                       format_number(stats::median(before)));
}

// A slow node whose every slow link is slow in one direction only, the same way: its send side
// (what it transmits: its NIC's or port's send path) or its receive side.
std::string side_of_node(const SlowNode& slow) {
    int sends = 0;
    int receives = 0;
    int slow_links = 0;
    for (const NodeLink& link : slow.evidence) {
        if (link.level == Level::pass) continue;
        ++slow_links;
        if (link.one_direction()) ++(link.slow_from == slow.node ? sends : receives);
    }
    if (slow_links == 0) return "";
    if (sends == slow_links) return fmt::format("; each slow only in what {} sends: its send side", slow.node);
    if (receives == slow_links) return fmt::format("; each slow only in what {} receives: its receive side", slow.node);
    return "";
}

std::string evidence_text(const std::vector<NodeLink>& links) {
    std::vector<std::string> parts;
    for (std::size_t i = 0; i < links.size() && i < listed_links; ++i) parts.push_back(link_text(links[i]));
    std::string text = join(parts);
    if (links.size() > listed_links) text += fmt::format(" and {} more", links.size() - listed_links);
    return text;
}

// The bands as they judged this figure; a WARN below the FAIL band says why it is no FAIL.
std::string band_text(Level level, double ratio, double warn, double fail) {
    if (level == Level::fail) return fmt::format("fail below {:.2f}", fail);
    if (ratio < fail)
        return fmt::format("warn below {:.2f}; below {:.2f} but within the noise margin, so no FAIL", warn, fail);
    return fmt::format("warn below {:.2f}, fail below {:.2f}", warn, fail);
}

// What a node's other links show: "node0001 is fine elsewhere (median 24 GB/s, 1.00 of reference)"
// or "node0001 is also slow with node0003".
std::string side_text(const PeerCheck& side) {
    if (side.links == 0) return fmt::format("{} has no other link", side.node);
    if (side.fine_elsewhere())
        return fmt::format("{} is fine elsewhere (median {} GB/s, {:.2f} of reference)", side.node,
                           format_number(side.median_gbs), side.median_ratio);
    return fmt::format("{} is also slow with {}", side.node, join(side.slow_with));
}

std::string peers_text(const SlowNode& slow) {
    std::vector<std::string> fine;
    std::vector<std::string> not_fine;
    for (const PeerCheck& peer : slow.peers)
        (peer.fine_elsewhere() ? fine : not_fine).push_back(peer.fine_elsewhere() ? peer.node : side_text(peer));
    std::string text;
    if (!fine.empty()) {
        const std::size_t count = fine.size();
        std::string names;
        if (count > listed_links) {
            fine.resize(listed_links);
            names = fmt::format("{} and {} more", join(fine), count - listed_links);
        } else {
            names = join(fine);
        }
        text = fmt::format("{} {} fine with their other peers", names, count == 1 ? "is" : "are");
    }
    for (const std::string& line : not_fine) text += (text.empty() ? "" : "; ") + line;
    return text;
}

std::string slow_node_reason(const SlowNode& slow, const LinkBands& bands) {
    const std::string band = band_text(slow.level, slow.ratio, bands.node_warn, bands.node_fail);
    if (std::none_of(slow.evidence.begin(), slow.evidence.end(), [](const NodeLink& l) { return l.level != Level::pass; }))
        return fmt::format(
            "slow node: {}'s {} inter-node links are {:.2f} of the links not touching it (their upper median {} GB/s vs "
            "{} GB/s; {}), each within the noise on its own but all of them low: {}",
            slow.node, slow.links, slow.ratio, format_number(slow.median_gbs), format_number(slow.others_median_gbs), band,
            evidence_text(slow.evidence));
    const int count = static_cast<int>(slow.evidence.size());
    const std::string head =
        slow.all_links ? fmt::format("slow node: all {} of {}'s inter-node links are slow, the common end of {} slow links",
                                     slow.links, slow.node, count)
                       : fmt::format("slow node: {} is the common end of {} slow links ({} of its {})", slow.node, count,
                                     count, slow.links);
    std::string text =
        fmt::format("{}: half of them or more at {:.2f} of their references or below ({} GB/s; {}); evidence {}{}", head,
                    slow.ratio, format_number(slow.median_gbs), band, evidence_text(slow.evidence),
                    side_of_node(slow) + degraded_text(slow.evidence));
    if (!slow.fine_links.empty()) text += fmt::format("; its links to others are fine ({})", evidence_text(slow.fine_links));
    if (const std::string peers = peers_text(slow); !peers.empty()) text += "; " + peers;
    return text + fmt::format(": {} is the culprit, not its peers", slow.node);
}

std::string slow_link_reason(const SlowLink& slow, const LinkBands& bands) {
    const NodeLink& link = slow.link;
    const std::string name = link.one_direction()
                                 ? fmt::format("{} (one direction; the reverse {} GB/s, {:.2f})", link.name(),
                                               format_number(link.reverse_gbs), link.reverse_ratio)
                                 : link.name();
    std::string text = fmt::format(
        "slow link {}: {} GB/s, {:.2f} of its reference {} GB/s ({}; {}), latency {} us", name,
        format_number(link.bandwidth_gbs), link.ratio, format_number(link.reference_gbs),
        link.disjoint_reference ? "the links touching neither end" : "every other link: too few touch neither end",
        band_text(slow.level, link.ratio, bands.link_warn, bands.link_fail), format_number(link.latency_us));
    text += degraded_text({link});
    if (!slow.beyond.empty())
        text += fmt::format("; slower than {} at its ends explain{}", join(slow.beyond), slow.beyond.size() == 1 ? "s" : "");
    text += fmt::format("; {}; {}: the link (a cable, or a port on either end), not the nodes: neither is drained for it",
                        side_text(slow.a_side), side_text(slow.b_side));
    return text;
}

std::string slow_group_reason(const SlowGroup& group, const LinkBands& bands) {
    return fmt::format(
        "slow group: {}: the {} links between it and the other nodes have a median of {} GB/s, half of them or more "
        "at {:.2f} of their references or below ({}; links elsewhere {} GB/s){}{}; evidence {}",
        group_name(group), group.cross_links, format_number(group.cross_median_gbs), group.ratio,
        band_text(group.level, group.ratio, bands.node_warn, bands.node_fail), format_number(group.inside_median_gbs),
        group.switch_name ? "" : " (no topology.conf given, or no leaf switch holds exactly these nodes)",
        group.even_split ? "; the other side is no larger: either side's uplink may be at fault" : "",
        evidence_text(group.evidence));
}

}  // namespace

LinkLocalization localize_links(const SampleTable& allpairs_matrix, const Observations& observations,
                                const Topology* topology, const LinkBands& bands) {
    return localize_links(split_link_matrix(link_matrix_sources().front(), allpairs_matrix, nullptr).front(), observations,
                          topology, bands);
}

LinkLocalization localize_links(const LinkMatrix& link_matrix, const Observations& observations, const Topology* topology,
                                const LinkBands& bands) {
    const SampleTable& matrix = link_matrix.table;
    LinkLocalization result;
    result.matrix = link_matrix.name;
    result.test = std::string(link_matrix.source.test);
    result.network = link_matrix.network;
    result.link_metric = std::string(link_matrix.source.link_metric);
    result.node_metric = std::string(link_matrix.source.node_metric);
    result.bands = bands;
    result.slow_fraction = bands.link_fail;
    result.nodes = node_order(observations);
    FoldedLinks folded = fold_node_links(matrix, observations, result.nodes);
    result.links = std::move(folded.links);
    result.noise = folded.noise;
    std::set<std::string> linked;
    for (const NodeLink& link : result.links) linked.insert({link.a, link.b});
    if (linked.size() < 3) {
        result.note = linked.size() == 2 ? "2 nodes: one link cannot tell a slow node from a slow link"
                                         : fmt::format("no inter-node links in the {} matrix", result.matrix);
        return result;
    }
    result.analyzed = true;
    if (result.noise.links_with_repeats == 0) result.note = "one sample per link: no noise estimate, the bands alone judge";
    std::vector<std::string> nodes;
    for (const std::string& node : result.nodes)
        if (linked.count(node)) nodes.push_back(node);
    LinkJudgement judgement = judge_links(result.links, nodes, result.noise, bands);
    Attribution attribution = attribute_slow_links(nodes, result.links, judgement, bands, topology);
    result.noise = judgement.noise;
    result.node_stats = std::move(judgement.node_stats);
    result.link_sigmas = judgement.link_sigmas;
    result.node_sigmas = judgement.node_sigmas;
    result.low_mode_links = judgement.low_mode_links;
    result.reference_floor_gbs = judgement.reference_floor_gbs;
    result.healthy_gbs = attribution.healthy_gbs;
    result.slow_nodes = std::move(attribution.slow_nodes);
    result.slow_links = std::move(attribution.slow_links);
    result.slow_groups = std::move(attribution.slow_groups);
    return result;
}

std::vector<Finding> link_findings(const LinkLocalization& localization, const Observations& observations) {
    std::vector<Finding> findings;
    // `edge`: the band's fraction of the reference at this level (the noise margin aside).
    auto add = [&](const std::string& node, Level level, ReasonCode code, double edge, const std::string& metric,
                   double value, double ratio, std::string reason, std::vector<std::string> peers) {
        // A source of several networks names the one a finding is about: "eth0: slow link ...".
        if (!localization.network.empty()) reason = localization.network + ": " + reason;
        Finding finding = make_finding(first_rank_of(observations, node), localization.test, level, std::move(reason),
                                       FindingSource::links);
        // About the node's network, not the GPU of the rank that measured it: no GPU row, no GPU
        // telemetry as its explanation (a slow link read "GPU 0 FAIL" on both of its ends).
        finding.gpu.reset();
        finding.gpu_uuid.clear();
        finding.code = code;
        finding.metric = metric;
        finding.link_matrix = localization.matrix;
        finding.value = value;
        finding.unit = "GB/s";
        if (ratio > 0) {
            finding.reference = value / ratio;
            finding.bound = *finding.reference * edge;
        }
        finding.evidence = Evidence::figure;
        finding.peers = std::move(peers);
        findings.push_back(std::move(finding));
    };
    // The far ends of the links a finding about `node` rests on.
    auto far_ends = [](const std::string& node, const std::vector<NodeLink>& links) {
        std::vector<std::string> ends;
        for (const NodeLink& link : links) {
            const std::string& other = link.a == node ? link.b : link.a;
            if (other != node && std::find(ends.begin(), ends.end(), other) == ends.end()) ends.push_back(other);
        }
        return ends;
    };
    const LinkBands& bands = localization.bands;
    for (const SlowNode& slow : localization.slow_nodes)
        add(slow.node, slow.level, ReasonCode::slow_node_links,
            slow.level == Level::fail ? bands.node_fail : bands.node_warn, localization.node_metric, slow.median_gbs,
            slow.ratio, slow_node_reason(slow, bands), far_ends(slow.node, slow.evidence));
    for (const SlowLink& slow : localization.slow_links) {
        const std::string reason = slow_link_reason(slow, bands);
        for (const std::string* end : {&slow.link.a, &slow.link.b})
            add(*end, slow.level, ReasonCode::slow_link, slow.level == Level::fail ? bands.link_fail : bands.link_warn,
                localization.link_metric, slow.link.bandwidth_gbs, slow.link.ratio, reason,
                {end == &slow.link.a ? slow.link.b : slow.link.a});
    }
    for (const SlowGroup& group : localization.slow_groups) {
        const std::string reason = slow_group_reason(group, bands);
        for (const std::string& node : group.nodes)
            add(node, group.level, ReasonCode::slow_switch_group,
                group.level == Level::fail ? bands.node_fail : bands.node_warn, localization.node_metric,
                group.cross_median_gbs, group.ratio, reason, far_ends(node, group.evidence));
    }
    return findings;
}

bool is_link_fault(const Finding& finding) {
    if (finding.source != FindingSource::links) return false;
    const auto& sources = link_matrix_sources();
    return std::any_of(sources.begin(), sources.end(),
                       [&](const LinkMatrixSource& source) { return finding.metric == source.link_metric; });
}

}  // namespace shakedown::analysis
