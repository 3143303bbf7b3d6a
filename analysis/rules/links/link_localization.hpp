// Localization from the allpairs link matrix (rank 0's samples: src, dst, intra_node,
// latency_us, bandwidth_gbs; one row per measurement of an ordered rank pair). Inter-node samples
// are folded into node links and judged against fleet-robust references with WARN and FAIL bands
// and a noise margin (link_statistics.hpp); the slow ones are then explained by the fewest culprits
// — switches, nodes, links (link_attribution.hpp). Intra-node links are not judged.
//
// What drains: a slow node and every member of a slow group are node findings (drained when they
// FAIL). A slow link is a finding about the link: a FAIL on both of its ends (the run fails, both
// show it) that drains neither of them, since the cable or a port is replaced, not the nodes
// (is_link_fault; report/drain_output.cpp).
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/links/link_attribution.hpp"
#include "analysis/rules/links/link_matrices.hpp"
#include "analysis/rules/links/link_statistics.hpp"
#include "analysis/rules/model/finding.hpp"
#include "analysis/rules/settings/analysis_settings.hpp"
#include "analysis/rules/settings/topology.hpp"
#include "core/result.hpp"
#include "mpi/allpairs/allpairs_names.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace shakedown::analysis {

struct LinkLocalization {
    std::string matrix{mpi::allpairs_names::key};  // LinkMatrix::name: what its findings and their confirmation key by
    std::string test{mpi::allpairs_names::key};    // whose findings these are
    std::string network;                           // "" for a source of one network, else "eth0": its findings say it
    std::string link_metric, node_metric;          // the source's (LinkMatrixSource)
    bool analyzed = false;
    std::string note;                // why not, or what limited the analysis
    std::vector<std::string> nodes;  // in run order (the heatmap's axes)
    std::vector<NodeLink> links;     // judged
    double healthy_gbs = 0.0;        // the median of the links that are not slow
    double slow_fraction = 0.0;      // the link FAIL band (bands.link_fail)
    LinkBands bands;
    MeasurementNoise noise;
    std::vector<NodeStatistic> node_stats;  // every node with links, run order
    double link_sigmas = 0.0;               // the noise margins' sigmas (family_sigmas)
    double node_sigmas = 0.0;
    int low_mode_links = 0;  // links below a wide gap, used by no reference
    double reference_floor_gbs = 0.0;
    std::vector<SlowNode> slow_nodes;
    std::vector<SlowLink> slow_links;
    std::vector<SlowGroup> slow_groups;
};

// `matrix`: a link matrix of rank 0 (link_matrices.hpp); ranks are mapped to nodes through the observations.
LinkLocalization localize_links(const LinkMatrix& matrix, const Observations& observations, const Topology* topology,
                                const LinkBands& bands);
// allpairs' samples of rank 0.
LinkLocalization localize_links(const SampleTable& allpairs_matrix, const Observations& observations,
                                const Topology* topology, const LinkBands& bands);

// WARN/FAIL findings: a slow node on the node; a slow group on each member; a slow link on both
// of its ends as a link fault.
std::vector<Finding> link_findings(const LinkLocalization& localization, const Observations& observations);

// A link fault's findings carry its source's link metric ("this rank's slowest link", which for the
// ends of a slow link is that link); a node or group finding the median-link metric.
// A finding about a link rather than the node it is filed under: fails the run, drains no node.
bool is_link_fault(const Finding& finding);

}  // namespace shakedown::analysis
