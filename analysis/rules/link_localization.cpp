#include "analysis/rules/link_localization.hpp"

#include "comm/link_matrix_columns.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <functional>
#include <numeric>
#include <set>

namespace shakedown::analysis {
namespace {

std::vector<std::string> node_order(const Observations& observations) {
    std::vector<std::string> nodes;
    for (const NodeRow& node : observations.nodes())
        if (node.name != unknown_node) nodes.push_back(node.name);
    return nodes;
}

// Inter-node rank links folded into node pairs.
std::vector<NodeLink> node_links(const SampleTable& matrix, const Observations& observations,
                                 const std::vector<std::string>& nodes) {
    const auto src = matrix.column_index(link_matrix_columns::src);
    const auto dst = matrix.column_index(link_matrix_columns::dst);
    const auto intra = matrix.column_index(link_matrix_columns::intra_node);
    const auto latency = matrix.column_index(link_matrix_columns::latency_us);
    const auto bandwidth = matrix.column_index(link_matrix_columns::bandwidth_gbs);
    if (!src || !dst || !bandwidth) return {};
    std::map<std::string, std::size_t> position;
    for (std::size_t i = 0; i < nodes.size(); ++i) position.emplace(nodes[i], i);
    auto node_of = [&](double rank) -> const std::string* {
        if (!std::isfinite(rank) || rank < 0 || rank >= static_cast<double>(observations.ranks().size())) return nullptr;
        const std::string& node = observations.ranks()[static_cast<std::size_t>(rank)].node;
        return node == unknown_node ? nullptr : &node;
    };
    struct Samples {
        std::vector<double> bandwidth;
        std::vector<double> latency;
    };
    std::map<std::pair<std::size_t, std::size_t>, Samples> pairs;
    for (const auto& row : matrix.rows()) {
        if (intra && row[*intra] != 0.0) continue;
        const std::string* a = node_of(row[*src]);
        const std::string* b = node_of(row[*dst]);
        if (a == nullptr || b == nullptr || *a == *b || !std::isfinite(row[*bandwidth])) continue;
        std::size_t i = position.at(*a);
        std::size_t j = position.at(*b);
        if (i > j) std::swap(i, j);
        Samples& samples = pairs[{i, j}];
        samples.bandwidth.push_back(row[*bandwidth]);
        if (latency && std::isfinite(row[*latency])) samples.latency.push_back(row[*latency]);
    }
    std::vector<NodeLink> links;
    for (auto& [key, samples] : pairs)
        links.push_back({nodes[key.first], nodes[key.second], stats::median(samples.bandwidth), stats::median(samples.latency),
                         static_cast<int>(samples.bandwidth.size())});
    return links;
}

bool touches(const NodeLink& link, const std::string& node) { return link.a == node || link.b == node; }

std::vector<double> bandwidths(const std::vector<const NodeLink*>& links) {
    std::vector<double> values;
    for (const NodeLink* link : links) values.push_back(link->bandwidth_gbs);
    return values;
}

// The median of the links above the largest gap between sorted neighbours when that gap is a
// ratio of at least 1/f; else the median of all.
double healthy_level(std::vector<double> values, double slow_fraction) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end(), std::greater<>());
    double largest_ratio = 1.0;
    std::size_t split = values.size();
    for (std::size_t i = 0; i + 1 < values.size(); ++i) {
        const double ratio = values[i + 1] > 0.0 ? values[i] / values[i + 1] : INFINITY;
        if (ratio > largest_ratio) {
            largest_ratio = ratio;
            split = i + 1;
        }
    }
    if (largest_ratio >= 1.0 / slow_fraction && split < values.size()) values.resize(split);
    return stats::median(values);
}

// Nodes connected by healthy links, as sets (union-find by repeated labelling: fleets are small
// enough for the node graph; the rank matrix was the large part).
std::vector<std::vector<std::string>> healthy_components(const std::vector<std::string>& nodes,
                                                         const std::vector<const NodeLink*>& healthy) {
    std::map<std::string, std::string> parent;
    for (const std::string& node : nodes) parent[node] = node;
    std::function<std::string(const std::string&)> root = [&](const std::string& node) {
        std::string current = node;
        while (parent[current] != current) current = parent[current] = parent[parent[current]];
        return current;
    };
    for (const NodeLink* link : healthy) {
        const std::string a = root(link->a);
        const std::string b = root(link->b);
        if (a != b) parent[b] = a;
    }
    std::map<std::string, std::vector<std::string>> sets;
    std::vector<std::string> order;
    for (const std::string& node : nodes) {
        const std::string r = root(node);
        if (sets[r].empty()) order.push_back(r);
        sets[r].push_back(node);
    }
    std::vector<std::vector<std::string>> components;
    for (const std::string& r : order) components.push_back(sets[r]);
    return components;
}

std::optional<std::string> switch_holding_exactly(const Topology* topology, const std::vector<std::string>& group,
                                                  const std::vector<std::string>& run_nodes) {
    if (topology == nullptr || group.empty()) return std::nullopt;
    const auto leaf = topology->switch_of(group.front());
    if (!leaf) return std::nullopt;
    std::set<std::string> members(group.begin(), group.end());
    for (const std::string& node : run_nodes) {
        const bool on_leaf = topology->switch_of(node) == leaf;
        if (on_leaf != (members.count(node) > 0)) return std::nullopt;
    }
    return leaf;
}

std::string join(const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
    return text;
}

const RankIdentity& first_rank_of(const Observations& observations, const std::string& node) {
    for (const NodeRow& row : observations.nodes())
        if (row.name == node && !row.ranks.empty()) return *observations.rank(row.ranks.front());
    return observations.ranks().front();
}


// The links not touching a slow node, split at slow_fraction x their healthy level.
struct LinkSplit {
    std::vector<const NodeLink*> remaining;
    std::vector<const NodeLink*> healthy;
    std::vector<const NodeLink*> slow;
};

// 1. Slow nodes: all their links below f x the median of the links not touching them.
std::set<std::string> find_slow_nodes(LinkLocalization& result, const std::vector<std::string>& nodes) {
    std::set<std::string> slow;
    for (const std::string& node : nodes) {
        std::vector<const NodeLink*> own;
        std::vector<const NodeLink*> others;
        for (const NodeLink& link : result.links) (touches(link, node) ? own : others).push_back(&link);
        if (own.empty() || others.empty()) continue;
        const std::vector<double> own_values = bandwidths(own);
        const double others_median = stats::median(bandwidths(others));
        const double highest = *std::max_element(own_values.begin(), own_values.end());
        if (others_median <= 0.0 || highest >= result.slow_fraction * others_median) continue;
        slow.insert(node);
        result.slow_nodes.push_back({node, static_cast<int>(own.size()), stats::median(own_values),
                                     *std::min_element(own_values.begin(), own_values.end()), highest, others_median});
    }
    return slow;
}

// 2. The healthy level among the links not touching a slow node, and the slow ones there.
LinkSplit split_remaining_links(LinkLocalization& result, const std::set<std::string>& slow_nodes) {
    LinkSplit split;
    for (const NodeLink& link : result.links)
        if (!slow_nodes.count(link.a) && !slow_nodes.count(link.b)) split.remaining.push_back(&link);
    result.healthy_gbs = healthy_level(bandwidths(split.remaining), result.slow_fraction);
    for (const NodeLink* link : split.remaining)
        (link->bandwidth_gbs < result.slow_fraction * result.healthy_gbs ? split.slow : split.healthy).push_back(link);
    return split;
}

// 3. Groups: sets joined by healthy links, every link between two sets slow. Returns the slow
// links the groups explain.
std::set<const NodeLink*> find_slow_groups(LinkLocalization& result, const LinkSplit& split,
                                           const std::vector<std::string>& healthy_nodes, const Topology* topology) {
    std::set<const NodeLink*> explained;
    auto components = healthy_components(healthy_nodes, split.healthy);
    if (components.size() <= 1 || split.slow.empty()) return explained;
    std::map<std::string, std::size_t> component_of;
    for (std::size_t c = 0; c < components.size(); ++c)
        for (const std::string& node : components[c]) component_of[node] = c;
    for (const NodeLink* link : split.healthy)
        if (component_of[link->a] != component_of[link->b]) return explained;  // a healthy link joins two sets
    // The largest set is the reference; every other set is a slow group (a single node there is
    // a slow node the per-node rule did not catch because its peers were slow too).
    const auto largest = std::max_element(components.begin(), components.end(),
                                          [](const auto& x, const auto& y) { return x.size() < y.size(); });
    std::vector<double> inside;
    for (const NodeLink* link : split.healthy) inside.push_back(link->bandwidth_gbs);
    for (auto component = components.begin(); component != components.end(); ++component) {
        if (component == largest) continue;
        std::set<std::string> members(component->begin(), component->end());
        std::vector<double> cross;
        for (const NodeLink* link : split.slow)
            if (members.count(link->a) != members.count(link->b)) {
                cross.push_back(link->bandwidth_gbs);
                explained.insert(link);
            }
        result.slow_groups.push_back({*component, switch_holding_exactly(topology, *component, healthy_nodes),
                                      static_cast<int>(cross.size()), stats::median(cross), stats::median(inside)});
    }
    return explained;
}

// 4. Slow links no group explains, each beside its two nodes' other links.
void add_slow_links(LinkLocalization& result, const LinkSplit& split, const std::set<const NodeLink*>& explained) {
    auto elsewhere = [&](const std::string& node, const NodeLink* except) {
        std::vector<double> values;
        for (const NodeLink* link : split.remaining)
            if (link != except && touches(*link, node)) values.push_back(link->bandwidth_gbs);
        return stats::median(values);
    };
    for (const NodeLink* link : split.slow)
        if (!explained.count(link))
            result.slow_links.push_back({*link, result.healthy_gbs, elsewhere(link->a, link), elsewhere(link->b, link)});
}

// 5. Slow nodes that together are exactly one leaf switch's nodes are that switch's problem.
void fold_slow_nodes_into_their_switch(LinkLocalization& result, const std::set<std::string>& slow_nodes,
                                       const std::vector<std::string>& nodes, const Topology* topology) {
    if (topology == nullptr || result.slow_nodes.size() < 2) return;
    std::vector<std::string> slow_names;
    for (const SlowNode& node : result.slow_nodes) slow_names.push_back(node.node);
    const auto leaf = switch_holding_exactly(topology, slow_names, nodes);
    if (!leaf) return;
    std::vector<double> cross;
    std::vector<double> inside;
    for (const NodeLink& link : result.links)
        (slow_nodes.count(link.a) || slow_nodes.count(link.b) ? cross : inside).push_back(link.bandwidth_gbs);
    result.slow_groups.push_back({slow_names, leaf, static_cast<int>(cross.size()), stats::median(cross), stats::median(inside)});
    result.slow_nodes.clear();
}

}  // namespace

LinkLocalization localize_links(const SampleTable& matrix, const Observations& observations, const Topology* topology,
                                double slow_fraction) {
    LinkLocalization result;
    result.slow_fraction = slow_fraction;
    result.nodes = node_order(observations);
    result.links = node_links(matrix, observations, result.nodes);
    std::set<std::string> linked;
    for (const NodeLink& link : result.links) linked.insert({link.a, link.b});
    if (linked.size() < 3) {
        result.note = linked.size() == 2 ? "2 nodes: one link cannot tell a slow node from a slow link"
                                         : "no inter-node links in the allpairs matrix";
        return result;
    }
    result.analyzed = true;
    const std::vector<std::string>& nodes = result.nodes;
    const std::set<std::string> slow_nodes = find_slow_nodes(result, nodes);
    const LinkSplit split = split_remaining_links(result, slow_nodes);
    std::vector<std::string> healthy_nodes;
    for (const std::string& node : nodes)
        if (!slow_nodes.count(node) && linked.count(node)) healthy_nodes.push_back(node);
    const std::set<const NodeLink*> explained = find_slow_groups(result, split, healthy_nodes, topology);
    add_slow_links(result, split, explained);
    fold_slow_nodes_into_their_switch(result, slow_nodes, nodes, topology);
    return result;
}

std::vector<Finding> link_findings(const LinkLocalization& localization, const Observations& observations) {
    std::vector<Finding> findings;
    auto add = [&](const std::string& node, double value, double reference, std::string reason) {
        Finding finding = make_finding(first_rank_of(observations, node), "allpairs", Level::fail, std::move(reason),
                                       FindingSource::links);
        finding.metric = "allpairs.inter_node_bandwidth_median_gbs";
        finding.value = value;
        finding.unit = "GB/s";
        finding.reference = reference;
        findings.push_back(std::move(finding));
    };
    const double f = localization.slow_fraction;
    for (const SlowNode& slow : localization.slow_nodes)
        add(slow.node, slow.median_gbs, slow.others_median_gbs,
            fmt::format("slow node: all {} of {}'s inter-node links are below {:.2f} x the median of the links not "
                        "touching it ({} GB/s): {}-{} GB/s, median {} GB/s ({:.2f} of the others)",
                        slow.links, slow.node, f, format_number(slow.others_median_gbs), format_number(slow.min_gbs),
                        format_number(slow.max_gbs), format_number(slow.median_gbs),
                        slow.median_gbs / slow.others_median_gbs));
    for (const SlowLink& slow : localization.slow_links) {
        const NodeLink& link = slow.link;
        const std::string reason = fmt::format(
            "slow link {}<->{}: {} GB/s, {:.2f} of the healthy link level {} GB/s (below {:.2f} x), latency {} us; "
            "both nodes are fine elsewhere ({} median {} GB/s, {} median {} GB/s): a cable or a port on either end",
            link.a, link.b, format_number(link.bandwidth_gbs), link.bandwidth_gbs / slow.healthy_gbs,
            format_number(slow.healthy_gbs), f, format_number(link.latency_us), link.a,
            format_number(slow.a_elsewhere_gbs), link.b, format_number(slow.b_elsewhere_gbs));
        add(link.a, link.bandwidth_gbs, slow.healthy_gbs, reason);
        add(link.b, link.bandwidth_gbs, slow.healthy_gbs, reason);
    }
    for (const SlowGroup& group : localization.slow_groups) {
        const std::string what = group.switch_name ? fmt::format("switch {} ({})", *group.switch_name, join(group.nodes))
                                                   : fmt::format("group of nodes {}", join(group.nodes));
        const std::string reason = fmt::format(
            "slow group: {}: the {} links between it and the other nodes have a median of {} GB/s, {:.2f} of the links "
            "elsewhere ({} GB/s){}",
            what, group.cross_links, format_number(group.cross_median_gbs),
            group.inside_median_gbs > 0 ? group.cross_median_gbs / group.inside_median_gbs : 0.0,
            format_number(group.inside_median_gbs),
            group.switch_name ? "" : " (no topology.conf given, or no leaf switch holds exactly these nodes)");
        for (const std::string& node : group.nodes) add(node, group.cross_median_gbs, group.inside_median_gbs, reason);
    }
    return findings;
}

}  // namespace shakedown::analysis
