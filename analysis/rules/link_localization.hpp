// Localization from the allpairs link matrix (rank 0's samples: src, dst, intra_node,
// latency_us, bandwidth_gbs). Inter-node rank links are folded into node pairs (the median of
// every rank pair and direction between two nodes), then:
//  - a slow node: every one of its links is below f x the median of the links not touching it
//    (this works for small fleets: with 3 nodes and one slow node, 2 of 3 links touch it, so the
//    job-wide median is the slow figure, but the one link not touching it is healthy);
//  - the healthy level: the median of the remaining links above the largest gap (a ratio of at
//    least 1/f between neighbours in sorted order), else of all of them;
//  - a slow group: the nodes split into sets connected by healthy links, and every link between
//    two sets is slow (a switch uplink); named after the leaf switch of a topology.conf when one
//    holds exactly the group's nodes, else "group of nodes";
//  - a slow link: a remaining link below f x the healthy level, both nodes healthy elsewhere.
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/finding.hpp"
#include "analysis/rules/topology.hpp"
#include "core/result.hpp"

#include <optional>
#include <string>
#include <vector>

namespace shakedown::analysis {

struct NodeLink {
    std::string a;  // a < b in the run's node order
    std::string b;
    double bandwidth_gbs = 0.0;  // median over the rank pairs and both directions
    double latency_us = 0.0;
    int samples = 0;
};

struct SlowNode {
    std::string node;
    int links = 0;
    double median_gbs = 0.0;
    double min_gbs = 0.0;
    double max_gbs = 0.0;
    double others_median_gbs = 0.0;  // the links not touching the node
};

struct SlowLink {
    NodeLink link;
    double healthy_gbs = 0.0;
    double a_elsewhere_gbs = 0.0;  // median of a's other links
    double b_elsewhere_gbs = 0.0;
};

struct SlowGroup {
    std::vector<std::string> nodes;
    std::optional<std::string> switch_name;
    int cross_links = 0;
    double cross_median_gbs = 0.0;   // links between the group and the other nodes
    double inside_median_gbs = 0.0;  // links within the groups (healthy)
};

struct LinkLocalization {
    bool analyzed = false;
    std::string note;                // why not, or what limited the analysis
    std::vector<std::string> nodes;  // in run order (the heatmap's axes)
    std::vector<NodeLink> links;
    double healthy_gbs = 0.0;
    double slow_fraction = 0.0;
    std::vector<SlowNode> slow_nodes;
    std::vector<SlowLink> slow_links;
    std::vector<SlowGroup> slow_groups;
};

// `matrix`: allpairs samples of rank 0; ranks are mapped to nodes through the observations.
LinkLocalization localize_links(const SampleTable& matrix, const Observations& observations, const Topology* topology,
                                double slow_fraction);

// FAIL findings: a slow node on the node; a slow link on both of its nodes (either end's port or
// the cable may be at fault); a slow group on each member.
std::vector<Finding> link_findings(const LinkLocalization& localization, const Observations& observations);

}  // namespace shakedown::analysis
