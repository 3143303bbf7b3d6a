#include "analysis/rules/links/congestion_rule.hpp"

#include "analysis/rules/links/congestion_localization.hpp"
#include "comm/communicator_names.hpp"
#include "comm/congestion_ring_columns.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <set>

namespace shakedown::analysis {
namespace {

// The MPI test and its NCCL variant report the same figures under their own key.
constexpr auto test_keys = congestion_ring_columns::tests;
// The statistics judged. The p99 impact is recorded and shown, not judged, as no other p99
// figure is (default.yaml): on an oversubscribed host it swung from 0.01 to 430 in 25 healthy runs.
constexpr std::array<std::string_view, 2> statistics = {"latency_p50", "bandwidth"};
constexpr std::size_t ranked_shown = 3;

bool is_congestion_test(const std::string& key) {
    return std::find(test_keys.begin(), test_keys.end(), key) != test_keys.end();
}

// The worst of the judged figures named `<test>.<prefix><statistic>_impact` in `test`, if any.
std::optional<std::pair<std::string, const Metric*>> worst(const TestResult& test, std::string_view prefix) {
    std::optional<std::pair<std::string, const Metric*>> found;
    for (const auto statistic : statistics)
        if (const Metric* metric = finite_metric(test, fmt::format("{}.{}{}_impact", test.key, prefix, statistic)))
            if (!found || metric->value > found->second->value) found.emplace(std::string(statistic), metric);
    return found;
}

Level level_of(double impact, const AnalysisSettings& s) {
    if (impact >= s.congestion_fail()) return Level::fail;
    return impact >= s.congestion_warn() ? Level::warn : Level::pass;
}

std::string describe(std::string_view statistic) {
    if (statistic == "bandwidth_alone") return "ring bandwidth alone";
    return statistic == "bandwidth" ? "ring bandwidth" : "p50 ring latency";
}

std::string ranking(const std::vector<NodeImpact>& nodes) {
    std::string text;
    for (std::size_t i = 0; i < std::min(nodes.size(), ranked_shown); ++i)
        text += fmt::format("{}{} {}x ({})", i == 0 ? "" : ", ", nodes[i].who->node, format_number(nodes[i].impact),
                            describe(nodes[i].statistic));
    if (nodes.size() > ranked_shown) text += fmt::format(" and {} more", nodes.size() - ranked_shown);
    return text;
}

Finding impact_finding(const RankIdentity& who, const std::string& test, const Metric& metric, Level level,
                       const AnalysisSettings& settings, std::string reason) {
    Finding finding = make_metric_finding(who, test, metric, level, std::move(reason));
    finding.code = ReasonCode::congestion_impact;
    finding.bound = level == Level::fail ? settings.congestion_fail() : settings.congestion_warn();
    finding.reference = 1.0;              // no impact
    finding.evidence = Evidence::figure;  // load-dependent: measured again before it drains
    return finding;
}

std::string bands_of(const AnalysisSettings& settings) {
    return fmt::format("warn from {}x, fail from {}x", format_number(settings.congestion_warn()),
                       format_number(settings.congestion_fail()));
}

// A node's own finding: its worst judged statistic.
Finding own_figure_finding(const Observations& observations, const AnalysisSettings& settings, const std::string& key,
                           const NodeImpact& node, Level level, const std::vector<NodeImpact>& nodes) {
    const TestResult* test = observations.test_of(node.who->rank, key);
    const Metric* metric = finite_metric(*test, fmt::format("{}.node_{}_impact", key, node.statistic));
    return impact_finding(*node.who, key, *metric, level, settings,
                          fmt::format("{}'s links degrade under load: its {} is {}x worse beside the congestors than alone "
                                      "({}); the most degraded nodes: {}",
                                      node.who->node, describe(node.statistic), format_number(node.impact),
                                      bands_of(settings), ranking(nodes)));
}

std::string joined_names(const std::vector<std::string>& nodes) {
    std::string text;
    for (std::size_t i = 0; i < nodes.size(); ++i) text += (i == 0 ? "" : i + 1 == nodes.size() ? " and " : ", ") + nodes[i];
    return text;
}

std::string whose_figures(const RingCulprit& culprit) {
    const auto own = static_cast<std::size_t>(std::count_if(culprit.evidence.begin(), culprit.evidence.end(),
                                                            [&](const RingRow& row) { return row.node == culprit.node; }));
    return culprit.neighbours.empty()
               ? "all of them its own"
               : fmt::format("{} of them its own, the others {}'s, its ring neighbours there, which it explains", own,
                             joined_names(culprit.neighbours));
}

// "in 2 of 3 rings": the rings a culprit's evidence was measured in, of the run's.
std::string rings_text(const RingCulprit& culprit, int rings) {
    std::set<int> seen;
    for (const RingRow& row : culprit.evidence) seen.insert(row.ring);
    return fmt::format("in {} of {} ring{}", seen.size(), rings, rings == 1 ? "" : "s");
}

// A node named from the ring figures: `<key>.<figure>`, the evidence's upper median, its ring
// neighbours whose figures it explains as peers (a confirmation measures them again too).
Finding ring_culprit_finding(const RankIdentity& who, const AnalysisSettings& settings, const std::string& key,
                             const RingCulprit& culprit, std::string_view figure, std::string reason) {
    const Metric metric{fmt::format("{}.{}", key, figure), "ratio", culprit.impact, std::nullopt, Better::lower};
    Finding finding = impact_finding(who, key, metric,
                                     culprit.impact >= settings.congestion_fail() ? Level::fail : Level::warn, settings,
                                     std::move(reason));
    finding.peers = culprit.neighbours;
    return finding;
}

// A node the ring figures slow even alone have in common.
Finding slow_alone_finding(const RankIdentity& who, const AnalysisSettings& settings, const std::string& key,
                           const RingCulprit& culprit, int rings) {
    Finding finding = ring_culprit_finding(
        who, settings, key, culprit, ring_links_slowdown_alone,
        fmt::format("{}'s links are slow even without the congestors: the {} ring bandwidths measured across them alone "
                    "({}) are {}x below the run's (their upper median, against the upper quartile of every ring "
                    "bandwidth alone; {}); {}",
                    culprit.node, culprit.evidence.size(), rings_text(culprit, rings), format_number(culprit.impact),
                    bands_of(settings), whose_figures(culprit)));
    finding.code = ReasonCode::slow_node_links;
    return finding;
}

// A node the degraded ring figures have in common; `who`: the rank its finding is filed under.
Finding common_node_finding(const RankIdentity& who, const AnalysisSettings& settings, const std::string& key,
                            const RingCulprit& culprit, int rings, const std::vector<NodeImpact>& nodes) {
    return ring_culprit_finding(
        who, settings, key, culprit, ring_links_impact,
        fmt::format("{}'s links degrade under load: the {} degraded ring figures measured across them ({}) are {}x "
                    "worse beside the congestors than alone (their upper median, {}; {}); {}; the most degraded nodes "
                    "by their own figures: {}",
                    culprit.node, culprit.evidence.size(), rings_text(culprit, rings), format_number(culprit.impact),
                    describe(culprit.statistic), bands_of(settings), whose_figures(culprit), ranking(nodes)));
}

// A node whose links are slow even alone backs up the congestors' traffic to it on every sender
// (they send to every node): under TCP's windows or a lossless fabric's credits the senders' queues
// fill and every figure measured beside them degrades (congestion spreading; on the virtual
// cluster a node shaped to 50 Mbit/s put a ring that does not cross it at 72x). So while such a
// node is named, another node's figures under load cannot say that its own links are at fault:
// that finding is kept, at most a WARN (drained by nothing), with the reason.
void as_possible_victim(Finding& finding, const std::set<std::string>& slow_alone, const AnalysisSettings& settings) {
    std::vector<std::string> culprits(slow_alone.begin(), slow_alone.end());
    if (finding.level == Level::fail) {
        finding.level = Level::warn;
        finding.bound = settings.congestion_warn();
    }
    finding.reason += fmt::format("; at most a WARN while {} {} slow even alone: the congestors send to {} too, and "
                                  "their traffic waits in every sender's queue (congestion spreading), so this node "
                                  "may be its victim; measure again once {} fixed",
                                  joined_names(culprits), culprits.size() == 1 ? "is" : "are",
                                  culprits.size() == 1 ? "it" : "them", culprits.size() == 1 ? "that is" : "those are");
}

}  // namespace

std::vector<NodeImpact> nodes_by_congestion_impact(const Observations& observations) {
    std::vector<NodeImpact> nodes;
    for (const TestRow& row : observations.tests()) {
        if (!is_congestion_test(row.test->key) || row.test->status == Status::waived) continue;
        if (const auto node = worst(*row.test, "node_"))
            nodes.push_back({row.who, row.test->key, node->first, node->second->value});
    }
    std::stable_sort(nodes.begin(), nodes.end(),
                     [](const NodeImpact& a, const NodeImpact& b) { return a.impact > b.impact; });
    return nodes;
}

std::vector<Finding> congestion_findings(const Observations& observations, const AnalysisSettings& settings,
                                         const Rank0Samples& rank0_samples) {
    std::vector<Finding> findings;
    for (const auto key : test_keys)
        append(findings, congestion_findings_of(observations, settings, std::string(key), rank0_samples));
    return findings;
}

std::vector<Finding> congestion_findings_of(const Observations& observations, const AnalysisSettings& settings,
                                            const std::string& key, const Rank0Samples& rank0_samples) {
    auto nodes = nodes_by_congestion_impact(observations);
    std::erase_if(nodes, [&](const NodeImpact& node) { return node.test != key; });
    const std::string bands = bands_of(settings);
    std::vector<Finding> findings;

    std::vector<RingRow> rows;
    const TestResult* job = observations.test_of(0, key);
    if (rank0_samples && job != nullptr && job->status != Status::waived)
        if (const auto table = rank0_samples(key))
            rows = ring_rows(*table, [&](int rank) {
                const RankIdentity* who = observations.rank(rank);
                return who != nullptr ? who->node : std::string();
            });
    if (!rows.empty()) {
        std::vector<std::string> run_nodes;
        for (const NodeRow& node : observations.nodes()) run_nodes.push_back(node.name);
        const auto own_of = [&](const std::string& name) {
            const auto found =
                std::find_if(nodes.begin(), nodes.end(), [&](const NodeImpact& n) { return n.who->node == name; });
            return found != nodes.end() ? &*found : nullptr;
        };
        std::set<int> rings;
        for (const RingRow& row : rows) rings.insert(row.ring);
        // The rank a node's finding is filed under: its first measuring rank (or the first rank of
        // its evidence on it, or its first rank).
        const auto filed_under = [&](const RingCulprit& culprit) {
            const NodeImpact* own = own_of(culprit.node);
            const RankIdentity* who = own != nullptr ? own->who : nullptr;
            for (const RingRow& row : culprit.evidence)
                if (who == nullptr && row.node == culprit.node) who = observations.rank(row.rank);
            if (who == nullptr)
                if (const NodeRow* node = observations.node(culprit.node); node != nullptr && !node->ranks.empty())
                    who = observations.rank(node->ranks.front());
            return who;
        };
        std::set<std::string> slow_alone;
        for (const RingCulprit& culprit : ring_culprits(
                 rows, run_nodes, settings.congestion_warn(), [](const std::string&) { return false; },
                 RingFigure::baseline_slowdown))
            if (const RankIdentity* who = filed_under(culprit)) {
                slow_alone.insert(culprit.node);
                findings.push_back(slow_alone_finding(*who, settings, key, culprit, static_cast<int>(rings.size())));
            }
        for (const RingCulprit& culprit : ring_culprits(
                 rows, run_nodes, settings.congestion_warn(),
                 [&](const std::string& name) {
                     const NodeImpact* own = own_of(name);
                     return own != nullptr && own->impact >= settings.congestion_warn();
                 },
                 RingFigure::impact, slow_alone)) {
            const NodeImpact* own = own_of(culprit.node);
            // Named by its own figure, or by figures that are all its own and that figure shows: the node's own finding.
            const bool own_figure = own != nullptr && own->impact >= settings.congestion_warn();
            std::optional<Finding> finding;
            if (!culprit.common_to_figures || (culprit.neighbours.empty() && own_figure)) {
                if (own != nullptr)
                    finding = own_figure_finding(observations, settings, key, *own, level_of(own->impact, settings), nodes);
            } else if (const RankIdentity* who = filed_under(culprit)) {
                finding = common_node_finding(*who, settings, key, culprit, static_cast<int>(rings.size()), nodes);
            }
            if (!finding) continue;
            if (!slow_alone.empty() && !slow_alone.contains(culprit.node))
                as_possible_victim(*finding, slow_alone, settings);
            findings.push_back(std::move(*finding));
        }
    } else {
        for (const NodeImpact& node : nodes)
            if (const Level level = level_of(node.impact, settings); level != Level::pass)
                findings.push_back(own_figure_finding(observations, settings, key, node, level, nodes));
    }
    if (!findings.empty()) return findings;

    // No node stands out: the job-wide figure (the median over the measuring ranks) says whether
    // the fabric as a whole does.
    if (job == nullptr || job->status == Status::waived) return findings;
    const auto figure = worst(*job, "");
    if (!figure) return findings;
    const Level level = level_of(figure->second->value, settings);
    if (level == Level::pass) return findings;
    const auto parameter = [&](std::string_view name) {
        const auto found = job->parameters.find(std::string(name));
        return found != job->parameters.end() ? found->second : std::string("?");
    };
    Finding finding = impact_finding(
        *observations.rank(0), key, *figure->second, level, settings,
        fmt::format("the fabric as a whole degrades under load: the {} of the {} measuring ranks (of {}) is {}x "
                    "worse beside the congestors than alone ({}), no node more than the others{}",
                    describe(figure->first), parameter(congestion_ring_columns::measuring_ranks),
                    parameter(communicator_names::communicator_ranks), format_number(figure->second->value), bands,
                    nodes.empty() ? "" : " (most degraded: " + ranking(nodes) + ")"));
    finding.cause = Cause::configuration;  // routing or QoS of the fabric: no node to drain
    findings.push_back(std::move(finding));
    return findings;
}

}  // namespace shakedown::analysis
