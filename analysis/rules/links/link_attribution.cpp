#include "analysis/rules/links/link_attribution.hpp"

#include "stats/summary.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace shakedown::analysis {
namespace {

bool is_slow(const NodeLink& link) { return link.level != Level::pass; }

// One cause slows its links alike: the evidence of one common end or group lies within this
// factor of its fastest link. Two links of one broken port read 0.0060 and 0.0119 on the virtual
// cluster (2x); a shaped link (0.01) beside a healthy link that noise or a shaped neighbour in the
// same ring-shift round put at 0.56-0.68 are different findings (50x and more).
constexpr double one_cause_spread = 0.25;

bool read_alike(const std::vector<const NodeLink*>& links) {
    double lowest = INFINITY;
    double highest = 0.0;
    for (const NodeLink* link : links) {
        lowest = std::min(lowest, link->ratio);
        highest = std::max(highest, link->ratio);
    }
    return highest > 0.0 && lowest / highest >= one_cause_spread;
}

double median_of(const std::vector<const NodeLink*>& links, double NodeLink::*field) {
    std::vector<double> values;
    for (const NodeLink* link : links) values.push_back(link->*field);
    return stats::median(values);
}

// A culprit's figure: the upper median of its evidence by ratio (at least half of the evidence is
// that slow; of two links, the better one).
const NodeLink& typical_link(const std::vector<const NodeLink*>& evidence) {
    std::vector<const NodeLink*> sorted = evidence;
    std::sort(sorted.begin(), sorted.end(), [](const NodeLink* x, const NodeLink* y) { return x->ratio < y->ratio; });
    return *sorted[sorted.size() / 2];
}

double lower_median_ratio(const std::vector<const NodeLink*>& evidence) {
    if (evidence.empty()) return 1.0;
    std::vector<double> ratios;
    for (const NodeLink* link : evidence) ratios.push_back(link->ratio);
    std::sort(ratios.begin(), ratios.end());
    return ratios[(ratios.size() - 1) / 2];
}

// The level a culprit's evidence supports: its typical link against the node bands with that
// link's own noise. Not a median's smaller noise: the evidence was chosen for being slow, and two
// links picked from many as the lowest are low by selection as much as by fault.
Level evidence_level(const std::vector<const NodeLink*>& evidence, const LinkBands& bands, double sigmas) {
    if (evidence.empty()) return Level::pass;
    const NodeLink& typical = typical_link(evidence);
    return level_of(typical.ratio, effective_bounds(bands.node_warn, bands.node_fail, typical.sigma, sigmas));
}

std::vector<NodeLink> worst_first(const std::vector<const NodeLink*>& links) {
    std::vector<NodeLink> copies;
    for (const NodeLink* link : links) copies.push_back(*link);
    std::stable_sort(copies.begin(), copies.end(), [](const NodeLink& x, const NodeLink& y) { return x.ratio < y.ratio; });
    return copies;
}

// Nodes joined by the links whose level is below `cut` (fail: the links that do not FAIL; warn:
// those that are not slow at all), as sets in run order (union-find: the node graph is small; the
// rank matrix was the large part).
std::vector<std::vector<std::string>> joined_sets(const std::vector<std::string>& nodes, const std::vector<NodeLink>& links,
                                                  Level cut) {
    std::map<std::string, std::string> parent;
    for (const std::string& node : nodes) parent[node] = node;
    auto root = [&](std::string node) {
        while (parent[node] != node) node = parent[node] = parent[parent[node]];
        return node;
    };
    for (const NodeLink& link : links) {
        if (link.level >= cut) continue;
        const std::string a = root(link.a);
        const std::string b = root(link.b);
        if (a != b) parent[b] = a;
    }
    std::map<std::string, std::size_t> set_of_root;
    std::vector<std::vector<std::string>> sets;
    for (const std::string& node : nodes) {
        auto [entry, inserted] = set_of_root.emplace(root(node), sets.size());
        if (inserted) sets.emplace_back();
        sets[entry->second].push_back(node);
    }
    return sets;
}

std::optional<std::string> switch_holding_exactly(const Topology* topology, const std::vector<std::string>& group,
                                                  const std::vector<std::string>& run_nodes) {
    if (topology == nullptr || group.empty()) return std::nullopt;
    const auto leaf = topology->switch_of(group.front());
    if (!leaf) return std::nullopt;
    const std::set<std::string> members(group.begin(), group.end());
    for (const std::string& node : run_nodes)
        if ((topology->switch_of(node) == leaf) != (members.count(node) > 0)) return std::nullopt;
    return leaf;
}

// The working state: which links are explained, and each culprit's factor (its figure's ratio, at
// most 1) for the check that a culprit explains the whole of a link's shortfall.
class Explanation {
public:
    Explanation(const std::vector<std::string>& nodes, const std::vector<NodeLink>& links) : links_(links) {
        for (std::size_t i = 0; i < nodes.size(); ++i) index_.emplace(nodes[i], i);
        own_.resize(nodes.size());
        node_factor_.assign(nodes.size(), 1.0);
        group_.assign(nodes.size(), -1);
        explained_.assign(links.size(), false);
        for (std::size_t i = 0; i < links.size(); ++i) {
            own_[index_.at(links[i].a)].push_back(i);
            own_[index_.at(links[i].b)].push_back(i);
        }
    }

    const std::vector<std::size_t>& own(const std::string& node) const { return own_[index_.at(node)]; }
    bool explained(std::size_t link) const { return explained_[link]; }
    void explain(std::size_t link) { explained_[link] = true; }
    int group_of(const std::string& node) const { return group_[index_.at(node)]; }
    void set_group(const std::string& node, int group, double factor) {
        group_[index_.at(node)] = group;
        if (group_factor_.size() <= static_cast<std::size_t>(group))
            group_factor_.resize(static_cast<std::size_t>(group) + 1, 1.0);
        group_factor_[static_cast<std::size_t>(group)] = std::min(factor, 1.0);
    }
    bool is_culprit(const std::string& node) const { return culprits_.count(node) > 0; }
    void set_culprit(const std::string& node, double factor) {
        culprits_.insert(node);
        node_factor_[index_.at(node)] = std::min(factor, 1.0);
    }
    void clear_culprit(const std::string& node) {  // its group is the culprit instead
        culprits_.erase(node);
        node_factor_[index_.at(node)] = 1.0;
    }

    // How much of a link's bandwidth the culprits at its ends explain: the product of their factors
    // (the most either could take away together); 1 when none is at either end.
    double explained_factor(const NodeLink& link) const {
        const std::size_t a = index_.at(link.a);
        const std::size_t b = index_.at(link.b);
        double factor = node_factor_[a] * node_factor_[b];
        if (group_[a] != group_[b]) {
            if (group_[a] >= 0) factor *= group_factor_[static_cast<std::size_t>(group_[a])];
            if (group_[b] >= 0) factor *= group_factor_[static_cast<std::size_t>(group_[b])];
        }
        return factor;
    }

    // The culprits at a link's ends, by name ("switch x" / "group of nodes" for a group).
    std::vector<std::string> culprits_at(const NodeLink& link, const std::vector<SlowGroup>& groups) const {
        std::vector<std::string> names;
        for (const std::string* end : {&link.a, &link.b}) {
            if (is_culprit(*end)) names.push_back(*end);
            const int group = group_of(*end);
            if (group >= 0 && group_of(link.other_end(*end)) != group) {
                names.push_back(group_name(groups[static_cast<std::size_t>(group)]));
            }
        }
        return names;
    }

    PeerCheck peer_check(const std::string& node, const std::string& except) const {
        PeerCheck check;
        check.node = node;
        std::vector<const NodeLink*> others;
        for (std::size_t i : own(node))
            if (!links_[i].touches(except)) {
                others.push_back(&links_[i]);
                if (is_slow(links_[i])) check.slow_with.push_back(links_[i].other_end(node));
            }
        check.links = static_cast<int>(others.size());
        check.median_gbs = median_of(others, &NodeLink::bandwidth_gbs);
        check.median_ratio = others.empty() ? 1.0 : median_of(others, &NodeLink::ratio);
        return check;
    }

private:
    const std::vector<NodeLink>& links_;
    std::map<std::string, std::size_t> index_;
    std::vector<std::vector<std::size_t>> own_;
    std::vector<double> node_factor_;
    std::vector<int> group_;
    std::vector<double> group_factor_;
    std::vector<bool> explained_;
    std::set<std::string> culprits_;
};

// The member every FAILing link of `cross` touches, when there is one (and any FAIL at all).
bool common_end_of_fail_links(const std::vector<const NodeLink*>& cross, const std::set<std::string>& members) {
    std::vector<const NodeLink*> failing;
    for (const NodeLink* link : cross)
        if (link->level == Level::fail) failing.push_back(link);
    if (failing.empty()) return false;
    return std::any_of(members.begin(), members.end(), [&](const std::string& member) {
        return std::all_of(failing.begin(), failing.end(), [&](const NodeLink* link) { return link->touches(member); });
    });
}

// 1. Sets joined by links that are not slow: every set but the largest of two or more nodes is a
// group; single nodes are returned as nodes whose every link is slow.
std::vector<std::string> find_groups(Attribution& out, Explanation& state, const std::vector<std::string>& nodes,
                                     const std::vector<NodeLink>& links, const LinkBands& bands, double sigmas,
                                     const Topology* topology) {
    // Sets joined by links that do not FAIL first, so that a noisy WARN link inside a switch
    // does not split it; then, if those do not split the fleet, by links that are not slow at all
    // (a switch whose uplink is in the WARN band).
    std::vector<std::string> isolated;
    auto sets = joined_sets(nodes, links, Level::fail);
    const bool split_by_warn_links = sets.size() < 2;
    if (split_by_warn_links) sets = joined_sets(nodes, links, Level::warn);
    if (sets.size() < 2) return isolated;
    const auto largest =
        std::max_element(sets.begin(), sets.end(), [](const auto& x, const auto& y) { return x.size() < y.size(); });
    for (auto set = sets.begin(); set != sets.end(); ++set) {
        if (set == largest) continue;
        if (set->size() == 1) {
            isolated.push_back(set->front());
            continue;
        }
        const std::set<std::string> members(set->begin(), set->end());
        std::vector<const NodeLink*> cross;
        std::vector<std::size_t> cross_index;
        for (std::size_t i = 0; i < links.size(); ++i)
            if (members.count(links[i].a) != members.count(links[i].b) && is_slow(links[i])) {
                cross.push_back(&links[i]);
                cross_index.push_back(i);
            }
        // Split only by WARN links, a group is an uplink in the WARN band. FAIL links among its
        // cross links that all touch one member are that member's (its common end), not the
        // group's: on 4 nodes, node4<->node1 and node4<->node2 FAIL with node3's links to node1
        // and node2 in the WARN band made "group node3, node4" FAIL, with node4 only a member.
        if (split_by_warn_links && common_end_of_fail_links(cross, members)) continue;
        // An uplink slows every cross link alike: two shaped links (0.02) and two links read low
        // beside them (0.56, 0.64) between two pairs of nodes are links, not "group node2, node3".
        if (!read_alike(cross)) continue;
        SlowGroup group;
        group.nodes = *set;
        group.switch_name = switch_holding_exactly(topology, *set, nodes);
        group.cross_links = static_cast<int>(cross.size());
        group.cross_median_gbs = median_of(cross, &NodeLink::bandwidth_gbs);
        group.ratio = typical_link(cross).ratio;
        // Every cross link is slow by construction: a group is at least a WARN.
        group.level = std::max(Level::warn, evidence_level(cross, bands, sigmas));
        group.even_split = largest->size() == set->size();
        group.evidence = worst_first(cross);
        const int id = static_cast<int>(out.slow_groups.size());
        for (const std::string& node : *set) state.set_group(node, id, group.ratio);
        for (std::size_t i : cross_index) state.explain(i);
        out.slow_groups.push_back(std::move(group));
    }
    std::vector<const NodeLink*> fine;
    for (const NodeLink& link : links)
        if (!is_slow(link)) fine.push_back(&link);
    for (SlowGroup& group : out.slow_groups) group.inside_median_gbs = median_of(fine, &NodeLink::bandwidth_gbs);
    return isolated;
}

SlowNode make_slow_node(const std::string& node, const std::vector<NodeLink>& links, const std::vector<std::size_t>& own,
                        const std::vector<const NodeLink*>& evidence, const NodeStatistic& stat, const LinkBands& bands,
                        double sigmas) {
    SlowNode slow;
    slow.node = node;
    slow.links = static_cast<int>(own.size());
    slow.min_gbs = stat.min_gbs;
    slow.max_gbs = stat.max_gbs;
    slow.others_median_gbs = stat.reference_gbs;
    slow.all_links = std::all_of(own.begin(), own.end(), [&](std::size_t i) { return is_slow(links[i]); });
    slow.by_statistic = stat.level != Level::pass;
    bool any_slow = false;
    for (const NodeLink* link : evidence) any_slow = any_slow || is_slow(*link);
    slow.ratio = any_slow ? typical_link(evidence).ratio : stat.ratio;
    slow.median_gbs = any_slow ? typical_link(evidence).bandwidth_gbs : stat.value_gbs;
    const Level by_factor = any_slow ? evidence_level(evidence, bands, sigmas) : Level::pass;
    slow.level = std::max(stat.level, by_factor);
    slow.evidence = worst_first(evidence);
    for (std::size_t i : own)
        if (!is_slow(links[i])) slow.fine_links.push_back(links[i]);
    return slow;
}

// 2. Nodes: every link slow, then common ends of >= 2 slow links, then a figure in a node band.
void find_nodes(Attribution& out, Explanation& state, const std::vector<std::string>& nodes,
                const std::vector<NodeLink>& links, const LinkJudgement& judgement, const std::vector<std::string>& isolated,
                const LinkBands& bands) {
    const std::vector<NodeStatistic>& stats = judgement.node_stats;
    std::map<std::string, const NodeStatistic*> stat_of;
    for (const NodeStatistic& stat : stats) stat_of[stat.node] = &stat;
    const NodeStatistic none;
    auto stat_for = [&](const std::string& node) -> const NodeStatistic& {
        const auto found = stat_of.find(node);
        return found == stat_of.end() ? none : *found->second;
    };
    // A slow link whose culprit's factor leaves it in the link FAIL band is not that culprit's
    // doing: it still counts for its other end, so that a mild slow node (0.84 on every link) does
    // not take a 0.01 link from the common end it belongs to.
    auto beyond_its_culprits = [&](std::size_t i) {
        const double residual = links[i].ratio / std::max(state.explained_factor(links[i]), 1e-12);
        return level_of(residual, effective_bounds(bands.link_warn, bands.link_fail, links[i].sigma,
                                                   judgement.link_sigmas)) == Level::fail;
    };
    auto unexplained_slow = [&](const std::string& node) {
        std::vector<std::size_t> found;
        for (std::size_t i : state.own(node))
            if (is_slow(links[i]) && (!state.explained(i) || beyond_its_culprits(i))) found.push_back(i);
        return found;
    };
    // A culprit found earlier gives up a link a later culprit explains: its evidence and factor
    // become those of the links left to it (it keeps at least one).
    auto give_up = [&](std::size_t link, const std::string& taker) {
        const std::string& holder = links[link].other_end(taker);
        for (SlowNode& slow : out.slow_nodes) {
            if (slow.node != holder || slow.evidence.size() < 2) continue;
            std::erase_if(slow.evidence, [&](const NodeLink& held) { return held.touches(taker); });
            std::vector<const NodeLink*> rest;
            for (const NodeLink& held : slow.evidence) rest.push_back(&held);
            const NodeLink& typical = typical_link(rest);
            slow.ratio = typical.ratio;
            slow.median_gbs = typical.bandwidth_gbs;
            // Its links are still slow (it was found for them): a WARN at least.
            slow.level = std::max(Level::warn, evidence_level(rest, bands, judgement.node_sigmas));
            state.set_culprit(holder, std::min(slow.ratio, lower_median_ratio(rest)));
        }
    };
    auto accept = [&](const std::string& node, const std::vector<std::size_t>& chosen, const NodeStatistic& figure) {
        std::vector<const NodeLink*> evidence;
        for (std::size_t i : chosen) evidence.push_back(&links[i]);
        if (evidence.empty())  // found by its own figure alone: its links no other culprit explains
            for (std::size_t i : state.own(node))
                if (!state.explained(i)) evidence.push_back(&links[i]);
        SlowNode slow = make_slow_node(node, links, state.own(node), evidence, figure, bands, judgement.node_sigmas);
        if (slow.level == Level::pass) return false;
        // What its links are judged beyond (step 3): the slower half of its evidence. The upper
        // median would make the slower of two evidence links "beyond its culprit" whenever the
        // two differ by the link band, as two links of one broken port do (0.02 and 0.04).
        state.set_culprit(node, std::min(slow.ratio, lower_median_ratio(evidence)));
        for (std::size_t i : chosen) {
            if (state.explained(i) && state.is_culprit(links[i].other_end(node))) give_up(i, node);
            state.explain(i);
        }
        out.slow_nodes.push_back(std::move(slow));
        return true;
    };
    // A. Every link slow: a slow node. Slow links a group explains are not its evidence.
    for (const std::string& node : isolated) {
        if (state.group_of(node) >= 0) continue;
        std::vector<std::size_t> chosen;
        for (std::size_t i : state.own(node))
            if (is_slow(links[i]) && !(state.explained(i) && state.group_of(links[i].other_end(node)) >= 0))
                chosen.push_back(i);
        accept(node, chosen, stat_for(node));
    }
    // A common end's links must read alike to be one cause (read_alike): a shaped link (0.01)
    // beside a healthy link that noise put just below the band (0.68) is two findings, not a node
    // at 0.68.
    auto of_one_cause = [&](const std::vector<std::size_t>& evidence) {
        std::vector<const NodeLink*> chosen;
        for (std::size_t i : evidence) chosen.push_back(&links[i]);
        return read_alike(chosen);
    };
    // B. Common ends, greedily: the node with the most slow links no culprit explains yet (2 or
    // more, reading alike), the lower median ratio on a tie.
    std::set<std::string> rejected;
    while (true) {
        const std::string* best = nullptr;
        std::vector<std::size_t> best_links;
        double best_ratio = INFINITY;
        for (const std::string& node : nodes) {
            if (state.is_culprit(node) || state.group_of(node) >= 0 || rejected.count(node)) continue;
            std::vector<std::size_t> candidates = unexplained_slow(node);
            if (candidates.size() < 2) continue;
            std::vector<double> ratios;
            for (std::size_t i : candidates) ratios.push_back(links[i].ratio);
            const double ratio = stats::median(ratios);
            if (best == nullptr || candidates.size() > best_links.size() ||
                (candidates.size() == best_links.size() && ratio < best_ratio)) {
                best = &node;
                best_links = std::move(candidates);
                best_ratio = ratio;
            }
        }
        if (best == nullptr) break;
        if (!of_one_cause(best_links) || !accept(*best, best_links, stat_for(*best))) rejected.insert(*best);
    }
    // C. A node whose own figure is in a node band even without the links other culprits explain
    // (a node's link to a slow node is slow because of that node): its figure again over the rest.
    for (const std::string& node : nodes) {
        const NodeStatistic& stat = stat_for(node);
        if (stat.level == Level::pass || state.is_culprit(node) || state.group_of(node) >= 0) continue;
        std::vector<const NodeLink*> rest;
        std::vector<std::size_t> chosen;
        for (std::size_t i : state.own(node))
            if (!state.explained(i)) {
                rest.push_back(&links[i]);
                if (is_slow(links[i])) chosen.push_back(i);
            }
        if (rest.empty()) continue;
        NodeStatistic figure = stat;
        if (rest.size() < state.own(node).size()) {  // the figure again without those links, as it was made
            std::sort(rest.begin(), rest.end(),
                      [](const NodeLink* x, const NodeLink* y) { return x->bandwidth_gbs < y->bandwidth_gbs; });
            figure.value_gbs = rest[rest.size() / 2]->bandwidth_gbs;
            figure.ratio = stat.reference_gbs > 0.0 ? figure.value_gbs / stat.reference_gbs : 1.0;
            figure.level = level_of(figure.ratio,
                                    effective_bounds(bands.node_warn, bands.node_fail, stat.sigma, judgement.node_sigmas));
        }
        if (figure.level != Level::pass) accept(node, chosen, figure);
    }
}

// 3. Links: those no culprit explains, and those slower than their ends' culprits explain.
void find_links(Attribution& out, const Explanation& state, const std::vector<NodeLink>& links, const LinkBands& bands,
                double sigmas) {
    for (std::size_t i = 0; i < links.size(); ++i) {
        const NodeLink& link = links[i];
        if (!is_slow(link)) continue;
        SlowLink slow;
        slow.link = link;
        slow.level = link.level;
        if (state.explained(i)) {
            const double residual = link.ratio / std::max(state.explained_factor(link), 1e-12);
            if (level_of(residual, effective_bounds(bands.link_warn, bands.link_fail, link.sigma, sigmas)) != Level::fail)
                continue;
            slow.level = Level::fail;
            slow.beyond = state.culprits_at(link, out.slow_groups);
        }
        slow.healthy_gbs = link.reference_gbs;
        slow.a_side = state.peer_check(link.a, link.b);
        slow.b_side = state.peer_check(link.b, link.a);
        slow.a_elsewhere_gbs = slow.a_side.median_gbs;
        slow.b_elsewhere_gbs = slow.b_side.median_gbs;
        out.slow_links.push_back(std::move(slow));
    }
}

// Slow nodes fine with each other but slow with most of the others are one group behind a
// shared uplink (one culprit, not one per node): under noise a cross link may pass and keep the
// sets of step 1 joined, so the group shows as its nodes first.
void merge_slow_nodes_into_groups(Attribution& out, Explanation& state, const std::vector<std::string>& nodes,
                                  const std::vector<NodeLink>& links, const LinkBands& bands, double sigmas,
                                  const Topology* topology) {
    if (out.slow_nodes.size() < 2) return;
    std::set<std::string> slow;
    for (const SlowNode& node : out.slow_nodes) slow.insert(node.node);
    std::vector<NodeLink> among;  // links between slow nodes, "slow" when they are
    for (const NodeLink& link : links)
        if (slow.count(link.a) && slow.count(link.b)) among.push_back(link);
    std::vector<std::string> slow_names;
    for (const std::string& node : nodes)
        if (slow.count(node)) slow_names.push_back(node);
    std::set<std::string> merged_nodes;
    for (const std::vector<std::string>& set : joined_sets(slow_names, among, Level::warn)) {
        if (set.size() < 2) continue;
        const std::set<std::string> members(set.begin(), set.end());
        std::vector<const NodeLink*> cross;
        std::vector<const NodeLink*> slow_cross;
        for (const NodeLink& link : links)
            if (members.count(link.a) != members.count(link.b)) {
                cross.push_back(&link);
                if (is_slow(link)) slow_cross.push_back(&link);
            }
        if (2 * slow_cross.size() <= cross.size()) continue;
        // One member the common end of every FAILing cross link is that node, beside WARN-slow
        // neighbours; a group's uplink fails the links of all its members.
        if (common_end_of_fail_links(slow_cross, members)) continue;
        if (!read_alike(slow_cross)) continue;
        SlowGroup group;
        group.nodes = set;
        group.switch_name = switch_holding_exactly(topology, set, nodes);
        group.cross_links = static_cast<int>(cross.size());
        group.cross_median_gbs = median_of(cross, &NodeLink::bandwidth_gbs);
        group.ratio = typical_link(slow_cross).ratio;
        group.level = std::max(Level::warn, evidence_level(slow_cross, bands, sigmas));
        group.evidence = worst_first(slow_cross);
        std::vector<const NodeLink*> fine;
        for (const NodeLink& link : links)
            if (!is_slow(link)) fine.push_back(&link);
        group.inside_median_gbs = median_of(fine, &NodeLink::bandwidth_gbs);
        const int id = static_cast<int>(out.slow_groups.size());
        for (const std::string& node : set) {
            state.clear_culprit(node);
            state.set_group(node, id, group.ratio);
        }
        out.slow_groups.push_back(std::move(group));
        merged_nodes.insert(set.begin(), set.end());
    }
    std::erase_if(out.slow_nodes, [&](const SlowNode& node) { return merged_nodes.count(node.node) > 0; });
}

// Slow nodes that together are exactly one leaf switch's nodes are that switch's problem.
void fold_slow_nodes_into_their_switch(Attribution& out, const std::vector<std::string>& nodes,
                                       const std::vector<NodeLink>& links, const Topology* topology) {
    if (topology == nullptr || out.slow_nodes.size() < 2) return;
    std::vector<std::string> names;
    Level level = Level::warn;
    for (const SlowNode& node : out.slow_nodes) {
        names.push_back(node.node);
        level = std::max(level, node.level);
    }
    const auto leaf = switch_holding_exactly(topology, names, nodes);
    if (!leaf) return;
    const std::set<std::string> members(names.begin(), names.end());
    std::vector<const NodeLink*> cross;
    std::vector<const NodeLink*> inside;
    for (const NodeLink& link : links) (members.count(link.a) || members.count(link.b) ? cross : inside).push_back(&link);
    SlowGroup group;
    group.nodes = names;
    group.switch_name = leaf;
    group.cross_links = static_cast<int>(cross.size());
    group.cross_median_gbs = median_of(cross, &NodeLink::bandwidth_gbs);
    group.inside_median_gbs = median_of(inside, &NodeLink::bandwidth_gbs);
    group.ratio = median_of(cross, &NodeLink::ratio);
    group.level = level;
    group.evidence = worst_first(cross);
    out.slow_groups.push_back(std::move(group));
    out.slow_nodes.clear();
}

}  // namespace

std::string group_name(const SlowGroup& group) {
    std::string names;
    for (const std::string& node : group.nodes) names += (names.empty() ? "" : ", ") + node;
    return group.switch_name ? "switch " + *group.switch_name + " (" + names + ")" : "group of nodes " + names;
}

Attribution attribute_slow_links(const std::vector<std::string>& nodes, const std::vector<NodeLink>& links,
                                 const LinkJudgement& judgement, const LinkBands& bands, const Topology* topology) {
    Attribution out;
    Explanation state(nodes, links);
    const std::vector<std::string> isolated = find_groups(out, state, nodes, links, bands, judgement.node_sigmas, topology);
    find_nodes(out, state, nodes, links, judgement, isolated, bands);
    merge_slow_nodes_into_groups(out, state, nodes, links, bands, judgement.node_sigmas, topology);
    for (SlowNode& node : out.slow_nodes)
        for (const NodeLink& link : node.evidence)
            node.peers.push_back(state.peer_check(link.other_end(node.node), node.node));
    find_links(out, state, links, bands, judgement.link_sigmas);
    fold_slow_nodes_into_their_switch(out, nodes, links, topology);
    std::vector<double> fine;
    std::vector<double> all;
    for (const NodeLink& link : links) {
        all.push_back(link.bandwidth_gbs);
        if (!is_slow(link)) fine.push_back(link.bandwidth_gbs);
    }
    out.healthy_gbs = fine.empty() ? stats::median(all) : stats::median(fine);
    return out;
}

}  // namespace shakedown::analysis
