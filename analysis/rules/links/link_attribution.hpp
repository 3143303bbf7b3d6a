// Minimum-explanation attribution of the slow links (those a WARN or FAIL by link_statistics):
// the fewest culprits — switches (groups of nodes), nodes, links — that explain every slow link.
//  1. groups: the nodes split into sets joined by links that are not slow; every link between two
//     sets is slow then. Each set but the largest (the first in run order on a tie) of two or more
//     nodes is a slow group, named after the leaf switch of a topology.conf that holds exactly its
//     nodes; a set of one node is a node whose every link is slow (step 2);
//  2. nodes: a node whose every link is slow, or whose own figure (the upper median of its links
//     against the links not touching it) is in a node band, or — greedily, most first — the common
//     end of 2 or more slow links no culprit explains yet: one node explains them with fewer
//     culprits than one per link, and its peers are named with what their other links show. Its
//     level is its own figure's, or its evidence's upper median link against the node bands,
//     whichever is worse. A link an earlier culprit's factor leaves in the link FAIL band still
//     counts for its other end, and the earlier culprit gives it up when that end is named (a
//     mild slow node never takes a severe link from its common end);
//  3. links: a slow link no culprit explains is the link (cable, or a port on either end), not a
//     node; so is a link slower than its ends' culprits explain (below the link FAIL band after
//     dividing by the product of their factors), on top of them.
// Then: slow nodes that are fine with each other but slow with most of the other nodes are one
// group (noise may let a cross link pass, which keeps the sets of step 1 joined); slow nodes that
// together are exactly one leaf switch's nodes are that switch.
#pragma once

#include "analysis/rules/links/link_statistics.hpp"
#include "analysis/rules/settings/topology.hpp"

#include <optional>
#include <string>
#include <vector>

namespace shakedown::analysis {

// What a culprit's peer (or a slow link's end) shows on its other links: never "fine elsewhere"
// unless none of them is slow.
struct PeerCheck {
    std::string node;
    int links = 0;                       // its links but the one(s) to the culprit
    double median_gbs = 0.0;             // their median (NaN without any)
    double median_ratio = 1.0;           // their median ratio to their references
    std::vector<std::string> slow_with;  // the far ends of those that are slow
    bool fine_elsewhere() const { return slow_with.empty(); }
};

struct SlowNode {
    std::string node;
    int links = 0;            // all of its inter-node links
    double median_gbs = 0.0;  // its typical evidence link's (the upper median by ratio)
    double min_gbs = 0.0;     // over all of its links
    double max_gbs = 0.0;
    double others_median_gbs = 0.0;  // the median of the links not touching it
    Level level = Level::warn;
    double ratio = 1.0;         // its factor: the typical evidence link's ratio (or its own figure's)
    bool all_links = false;     // every one of its links is slow
    bool by_statistic = false;  // found by its own figure (the upper median of its links), not only as a common end
    std::vector<NodeLink>
        evidence;  // the slow links it explains (all of its links when found by its figure alone), worst first
    std::vector<NodeLink> fine_links;  // its links that are not slow
    std::vector<PeerCheck> peers;      // the far ends of the evidence
};

struct SlowLink {
    NodeLink link;
    double healthy_gbs = 0.0;      // its reference
    double a_elsewhere_gbs = 0.0;  // median of a's other links
    double b_elsewhere_gbs = 0.0;
    Level level = Level::warn;
    PeerCheck a_side;  // a's other links
    PeerCheck b_side;
    std::vector<std::string> beyond;  // culprits at its ends whose factor does not explain it ("" none)
};

struct SlowGroup {
    std::vector<std::string> nodes;
    std::optional<std::string> switch_name;
    int cross_links = 0;
    double cross_median_gbs = 0.0;   // links between the group and the other nodes
    double inside_median_gbs = 0.0;  // links that are not slow
    Level level = Level::fail;
    double ratio = 1.0;              // the typical slow cross link's ratio (upper median)
    bool even_split = false;         // the reference side is no larger: either side's uplink may be at fault
    std::vector<NodeLink> evidence;  // the cross links, worst first
};

struct Attribution {
    std::vector<SlowNode> slow_nodes;
    std::vector<SlowLink> slow_links;
    std::vector<SlowGroup> slow_groups;
    double healthy_gbs = 0.0;  // the median of the links that are not slow (of all when every one is)
};

// `nodes`: the run's nodes that have links, in run order; `links` and `judgement` from judge_links.
Attribution attribute_slow_links(const std::vector<std::string>& nodes, const std::vector<NodeLink>& links,
                                 const LinkJudgement& judgement, const LinkBands& bands, const Topology* topology);

// "switch leaf1 (node0003, node0004, node0005)" or "group of nodes node0003, node0004".
std::string group_name(const SlowGroup& group);

}  // namespace shakedown::analysis
