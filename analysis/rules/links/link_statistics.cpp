#include "analysis/rules/links/link_statistics.hpp"

#include "comm/link_matrix_columns.hpp"
#include "stats/summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

namespace shakedown::analysis {
namespace {

// The standard error of a median of n values is sqrt(pi/2) ~ 1.2533 times that of their mean;
// for one or two values the median is the value or their mean.
double median_factor(int n) { return n >= 3 ? 1.2533 : 1.0; }

// The links in ascending bandwidth, with each node's links as positions in that order: the
// median of every link but those touching one or two nodes is then found by skipping their
// positions (O(nodes) per link, not O(links)), which keeps a 512-node matrix (130 816 links) cheap.
class SortedLinks {
public:
    SortedLinks(const std::vector<NodeLink>& links, const std::vector<std::string>& nodes) {
        std::vector<std::size_t> order(links.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t x, std::size_t y) { return links[x].bandwidth_gbs < links[y].bandwidth_gbs; });
        position_.resize(links.size());
        for (std::size_t p = 0; p < order.size(); ++p) {
            position_[order[p]] = p;
            values_.push_back(links[order[p]].bandwidth_gbs);
        }
        for (const std::string& node : nodes) own_[node];
        for (std::size_t i = 0; i < links.size(); ++i) {
            own_[links[i].a].push_back(position_[i]);
            own_[links[i].b].push_back(position_[i]);
        }
        for (auto& [node, positions] : own_) std::sort(positions.begin(), positions.end());
    }

    std::size_t size() const { return values_.size(); }
    std::size_t position(std::size_t link) const { return position_[link]; }
    const std::vector<std::size_t>& own(const std::string& node) const { return own_.at(node); }
    double at(std::size_t position) const { return values_[position]; }

    // References use the links from position `floor` up (the low mode below it is left out).
    void set_floor(std::size_t floor) { floor_ = floor; }
    std::size_t floor() const { return floor_; }

    // How many links from the floor up are not in `excluded` (sorted, unique).
    std::size_t left_without(const std::vector<std::size_t>& excluded) const {
        const auto below = std::lower_bound(excluded.begin(), excluded.end(), floor_);
        return values_.size() - floor_ - static_cast<std::size_t>(excluded.end() - below);
    }

    // The median of those links; NaN if none is left.
    double median_without(const std::vector<std::size_t>& excluded) const {
        const std::size_t left = left_without(excluded);
        if (left == 0) return stats::no_value;
        if (left % 2 == 1) return values_[kth_without(excluded, left / 2)];
        return (values_[kth_without(excluded, left / 2 - 1)] + values_[kth_without(excluded, left / 2)]) / 2.0;
    }

private:
    // The position of the k-th (0-based) remaining link from the floor up.
    std::size_t kth_without(const std::vector<std::size_t>& excluded, std::size_t k) const {
        std::size_t p = floor_ + k;
        for (auto e = std::lower_bound(excluded.begin(), excluded.end(), floor_); e != excluded.end(); ++e) {
            if (*e > p) break;
            ++p;
        }
        return p;
    }

    std::size_t floor_ = 0;

    std::vector<double> values_;
    std::vector<std::size_t> position_;
    std::map<std::string, std::vector<std::size_t>> own_;
};

std::vector<std::size_t> merged(const std::vector<std::size_t>& x, const std::vector<std::size_t>& y) {
    std::vector<std::size_t> out;
    out.reserve(x.size() + y.size());
    std::set_union(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(out));
    return out;
}

double ratio_to(double value, double reference) {
    if (!(reference > 0.0)) return value > 0.0 ? INFINITY : 1.0;  // nothing to compare with: not slow
    return value / reference;
}

// Pooled noise: every sample's |log deviation| from its link's mean, scaled by sqrt(n / (n - 1))
// (deviations from a mean of n are that much narrower than the samples' own spread); the median
// of them all times 1.4826 estimates one sample's sigma.
MeasurementNoise pooled_noise(const std::vector<std::vector<double>>& samples_per_link) {
    MeasurementNoise noise;
    std::vector<double> deviations;
    int degrees = 0;
    std::vector<double> counts;
    for (const std::vector<double>& samples : samples_per_link) {
        counts.push_back(static_cast<double>(samples.size()));
        std::vector<double> logs;
        for (double value : samples)
            if (value > 0.0 && std::isfinite(value)) logs.push_back(std::log(value));
        if (logs.size() < 2) continue;
        ++noise.links_with_repeats;
        degrees += static_cast<int>(logs.size()) - 1;
        const double n = static_cast<double>(logs.size());
        const double mean = std::accumulate(logs.begin(), logs.end(), 0.0) / n;
        for (double value : logs) deviations.push_back(std::abs(value - mean) * std::sqrt(n / (n - 1.0)));
    }
    if (!deviations.empty()) {
        noise.measured_sigma = stats::mad_to_sigma * stats::median(deviations);
        // A MAD has about 37 % of the efficiency of a standard deviation: its relative standard
        // error is about 1 / sqrt(2 x 0.37 x degrees of freedom).
        noise.sample_sigma = noise.measured_sigma * (1.0 + 1.0 / std::sqrt(0.74 * degrees));
    }
    noise.degrees_of_freedom = degrees;
    if (!counts.empty()) noise.typical_samples = std::max(1, static_cast<int>(std::lround(stats::median(counts))));
    return noise;
}

std::vector<double> values_of(const std::vector<TimedSample>& samples, int from_round, int to_round) {
    std::vector<double> values;
    for (const TimedSample& sample : samples)
        if (sample.round >= from_round && sample.round < to_round) values.push_back(sample.gbs);
    return values;
}

// The lower of two medians over the higher (1 when either is empty or not positive).
double apart_ratio(const std::vector<double>& x, const std::vector<double>& y) {
    if (x.empty() || y.empty()) return 1.0;
    const double mx = stats::median(x);
    const double my = stats::median(y);
    if (!(mx > 0.0) || !(my > 0.0)) return 1.0;
    return std::min(mx, my) / std::max(mx, my);
}

// Spread of a part: the sum of its samples' squared log deviations from the part's mean log.
double log_spread(const std::vector<double>& values) {
    std::vector<double> logs;
    for (double value : values)
        if (value > 0.0 && std::isfinite(value)) logs.push_back(std::log(value));
    if (logs.size() < 2) return 0.0;
    const double mean = std::accumulate(logs.begin(), logs.end(), 0.0) / static_cast<double>(logs.size());
    double sum = 0.0;
    for (double value : logs) sum += (value - mean) * (value - mean);
    return sum;
}

// The round from which one direction's samples changed: the split that leaves the least spread
// inside its two parts (least squares on the log scale), when the parts' medians are further
// apart than change_gap; 0 when there is none.
int change_round(const std::vector<TimedSample>& samples) {
    int rounds = 0;
    for (const TimedSample& sample : samples) rounds = std::max(rounds, sample.round + 1);
    int best = 0;
    double best_spread = INFINITY;
    for (int k = 1; k < rounds; ++k) {
        const std::vector<double> before = values_of(samples, 0, k);
        const std::vector<double> after = values_of(samples, k, rounds);
        const double spread = log_spread(before) + log_spread(after);
        if (spread < best_spread) {
            best_spread = spread;
            best = k;
        }
    }
    if (best == 0) return 0;
    return apart_ratio(values_of(samples, 0, best), values_of(samples, best, rounds)) < change_gap ? best : 0;
}

// A link's figures from its two directions' samples: each direction from the round it changed
// (its state at the end of the run), and the groups its samples give the pooled noise: one for
// the link, split where the directions or the rounds are apart by more than any spread.
void fold_timeline(NodeLink& link, const std::vector<TimedSample>& a_to_b, const std::vector<TimedSample>& b_to_a,
                   std::vector<std::vector<double>>& noise_groups) {
    constexpr int end = std::numeric_limits<int>::max();
    const int ab_change = change_round(a_to_b);
    const int ba_change = change_round(b_to_a);
    const std::vector<double> ab_before = values_of(a_to_b, 0, ab_change);
    const std::vector<double> ba_before = values_of(b_to_a, 0, ba_change);
    const std::vector<double> ab_after = values_of(a_to_b, ab_change, end);
    const std::vector<double> ba_after = values_of(b_to_a, ba_change, end);
    std::vector<double> after = ab_after;
    after.insert(after.end(), ba_after.begin(), ba_after.end());
    std::vector<double> before = ab_before;
    before.insert(before.end(), ba_before.begin(), ba_before.end());
    link.bandwidth_gbs = stats::median(after);
    link.samples = static_cast<int>(after.size());
    link.a_to_b_samples = static_cast<int>(ab_after.size());
    link.b_to_a_samples = static_cast<int>(ba_after.size());
    if (!ab_after.empty()) link.a_to_b_gbs = stats::median(ab_after);
    if (!ba_after.empty()) link.b_to_a_gbs = stats::median(ba_after);
    int rounds = 0;
    for (const auto* direction : {&a_to_b, &b_to_a})
        for (const TimedSample& sample : *direction) rounds = std::max(rounds, sample.round + 1);
    link.rounds = rounds;
    if (ab_change > 0 || ba_change > 0) {
        link.changed_from_round = ab_change > 0 && ba_change > 0 ? std::min(ab_change, ba_change)
                                                                 : std::max(ab_change, ba_change);
        link.before_gbs = stats::median(before);
    }
    if (apart_ratio(ab_after, ba_after) < change_gap) {  // each direction its own figure
        for (auto* group : {&ab_before, &ab_after, &ba_before, &ba_after})
            if (!group->empty()) noise_groups.push_back(*group);
    } else {
        if (!before.empty()) noise_groups.push_back(std::move(before));
        noise_groups.push_back(std::move(after));
    }
}

}  // namespace

double MeasurementNoise::of_median(int samples) const {
    const double repeats = samples <= 1 ? sample_sigma
                                        : sample_sigma * median_factor(samples) / std::sqrt(static_cast<double>(samples));
    return std::max(repeats, between_sigma);
}

double MeasurementNoise::of_link_median(int links) const {
    const double one = of_median(typical_samples);
    if (links <= 1) return one;
    return one * median_factor(links) / std::sqrt(static_cast<double>(links));
}

double family_sigmas(std::size_t figures, const LinkBands& bands) {
    // The upper-tail quantile z with P(Z > z) = false_fail_rate / figures, by bisection on erfc.
    const double tail = bands.false_fail_rate / static_cast<double>(std::max<std::size_t>(figures, 1));
    double low = 0.0;
    double high = 40.0;
    for (int step = 0; step < 100; ++step) {
        const double mid = (low + high) / 2.0;
        (0.5 * std::erfc(mid / std::sqrt(2.0)) > tail ? low : high) = mid;
    }
    return std::max(bands.noise_sigmas, high);
}

Bounds effective_bounds(double warn_band, double fail_band, double sigma, double noise_sigmas) {
    const double limit = std::exp(-noise_sigmas * std::max(sigma, 0.0));
    return {std::min(warn_band, limit), std::min(fail_band, limit), limit < fail_band};
}

Level level_of(double ratio, const Bounds& bounds) {
    if (ratio < bounds.fail) return Level::fail;
    if (ratio < bounds.warn) return Level::warn;
    return Level::pass;
}

FoldedLinks fold_node_links(const SampleTable& matrix, const Observations& observations,
                            const std::vector<std::string>& nodes) {
    FoldedLinks folded;
    const auto src = matrix.column_index(link_matrix_columns::src);
    const auto dst = matrix.column_index(link_matrix_columns::dst);
    const auto intra = matrix.column_index(link_matrix_columns::intra_node);
    const auto latency = matrix.column_index(link_matrix_columns::latency_us);
    const auto bandwidth = matrix.column_index(link_matrix_columns::bandwidth_gbs);
    if (!src || !dst || !bandwidth) return folded;
    std::map<std::string, std::size_t> position;
    for (std::size_t i = 0; i < nodes.size(); ++i) position.emplace(nodes[i], i);
    auto node_of = [&](double rank) -> const std::string* {
        if (!std::isfinite(rank) || rank < 0 || rank >= static_cast<double>(observations.ranks().size())) return nullptr;
        const std::string& node = observations.ranks()[static_cast<std::size_t>(rank)].node;
        return node == unknown_node || !position.count(node) ? nullptr : &node;
    };
    struct Samples {
        std::vector<TimedSample> a_to_b;  // (round, GB/s) in the matrix's order
        std::vector<TimedSample> b_to_a;
        std::vector<double> latency;
    };
    std::map<std::pair<std::size_t, std::size_t>, Samples> pairs;
    std::map<std::pair<double, double>, int> rounds_of_rank_pair;  // a rank pair's next row is its next round
    for (const auto& row : matrix.rows()) {
        if (intra && row[*intra] != 0.0) continue;
        const std::string* a = node_of(row[*src]);
        const std::string* b = node_of(row[*dst]);
        if (a == nullptr || b == nullptr || *a == *b || !std::isfinite(row[*bandwidth])) continue;
        std::size_t i = position.at(*a);
        std::size_t j = position.at(*b);
        const bool from_a = i < j;
        if (i > j) std::swap(i, j);
        Samples& samples = pairs[{i, j}];
        const int round = rounds_of_rank_pair[{row[*src], row[*dst]}]++;
        (from_a ? samples.a_to_b : samples.b_to_a).push_back({round, row[*bandwidth]});
        if (latency && std::isfinite(row[*latency])) samples.latency.push_back(row[*latency]);
    }
    std::vector<std::vector<double>> noise_groups;
    for (auto& [key, samples] : pairs) {
        NodeLink link;
        link.a = nodes[key.first];
        link.b = nodes[key.second];
        link.latency_us = samples.latency.empty() ? 0.0 : stats::median(samples.latency);
        fold_timeline(link, samples.a_to_b, samples.b_to_a, noise_groups);
        folded.links.push_back(std::move(link));
    }
    folded.noise = pooled_noise(noise_groups);
    return folded;
}

namespace {

// The position above the largest gap between neighbours in ascending order, when that gap is a
// ratio beyond the FAIL band and beyond noise_sigmas of the repeats' noise of two link figures,
// and at least min_reference_links links lie above it; else 0 (every link may be a reference).
std::size_t reference_floor(const SortedLinks& sorted, const MeasurementNoise& noise, const LinkBands& bands) {
    const double needed = std::max(1.0 / bands.link_fail,
                                   std::exp(bands.noise_sigmas * std::sqrt(2.0) * noise.of_median(noise.typical_samples)));
    std::size_t floor = 0;
    double widest = 1.0;
    for (std::size_t p = 0; p + 1 < sorted.size(); ++p) {
        if (sorted.size() - (p + 1) < static_cast<std::size_t>(bands.min_reference_links)) break;
        const double low = sorted.at(p);
        const double ratio = low > 0.0 ? sorted.at(p + 1) / low : (sorted.at(p + 1) > 0.0 ? INFINITY : 1.0);
        if (ratio > widest) {
            widest = ratio;
            floor = p + 1;
        }
    }
    return widest >= needed ? floor : 0;
}

// The healthy links' log ratios: 1.4826 x their MAD; 0 with fewer than min_between_links of
// them. Not raised by its standard error as the repeats' estimate is: it is a floor beside that
// one, and a floor raised from 5 links would hide a slow node of a 4-node fleet in the noise.
constexpr std::size_t min_between_links = 5;
double between_link_sigma(const std::vector<NodeLink>& links) {
    std::vector<double> logs;
    for (const NodeLink& link : links)
        if (link.level == Level::pass && link.ratio > 0.0 && std::isfinite(link.ratio)) logs.push_back(std::log(link.ratio));
    if (logs.size() < min_between_links) return 0.0;
    return stats::mad_to_sigma * stats::mad(logs, stats::median(logs));
}

void judge_link(NodeLink& link, std::size_t index, const SortedLinks& sorted, const MeasurementNoise& noise,
                const LinkBands& bands, double sigmas) {
    std::vector<std::size_t> excluded = merged(sorted.own(link.a), sorted.own(link.b));
    link.disjoint_reference = sorted.left_without(excluded) >= static_cast<std::size_t>(bands.min_reference_links);
    if (!link.disjoint_reference) excluded = {sorted.position(index)};
    link.reference_links = static_cast<int>(sorted.left_without(excluded));
    link.reference_gbs = sorted.median_without(excluded);
    link.ratio = ratio_to(link.bandwidth_gbs, link.reference_gbs);
    link.sigma = std::hypot(noise.of_median(link.samples), noise.of_link_median(link.reference_links));
    link.level = level_of(link.ratio, effective_bounds(bands.link_warn, bands.link_fail, link.sigma, sigmas));
}

NodeStatistic node_statistic(const std::string& node, const SortedLinks& sorted, const MeasurementNoise& noise,
                             const LinkBands& bands, double sigmas) {
    const std::vector<std::size_t>& own = sorted.own(node);
    NodeStatistic stat;
    stat.node = node;
    stat.links = static_cast<int>(own.size());
    stat.value_gbs = sorted.at(own[own.size() / 2]);  // upper median: at least half of its links are this slow
    stat.min_gbs = sorted.at(own.front());
    stat.max_gbs = sorted.at(own.back());
    stat.reference_links = static_cast<int>(sorted.left_without(own));
    stat.reference_gbs = sorted.median_without(own);
    stat.sigma = std::hypot(noise.of_link_median(stat.links), noise.of_link_median(stat.reference_links));
    // Not judged when the low mode (the links of a broken node) took its reference below
    // min_reference_links: one healthy link may be all that is left, and a node judged against
    // that one alone failed for its ordinary links (the virtual cluster, 4 nodes). A small fleet
    // with no low mode keeps the few links it has (3 nodes: one).
    const std::size_t disjoint = sorted.size() - own.size();
    const bool reference_cut_by_low_mode = stat.reference_links < bands.min_reference_links &&
                                           static_cast<std::size_t>(stat.reference_links) < disjoint;
    if (stat.reference_links > 0) {
        stat.ratio = ratio_to(stat.value_gbs, stat.reference_gbs);
        if (!reference_cut_by_low_mode)
            stat.level = level_of(stat.ratio, effective_bounds(bands.node_warn, bands.node_fail, stat.sigma, sigmas));
    }
    return stat;
}

// One direction FAILs against the link's reference (with the noise of its own samples), the other
// does not, and the two are apart by the square of the FAIL band beyond their noise: the link is
// that direction.
// Both FAIL, or one only in the WARN band: the link keeps the figure of both.
void judge_directions(NodeLink& link, const MeasurementNoise& noise, const LinkBands& bands, double sigmas) {
    if (link.a_to_b_samples == 0 || link.b_to_a_samples == 0 || !(link.reference_gbs > 0.0)) return;
    struct Direction {
        const std::string* from;
        double gbs;
        int samples;
        double ratio = 1.0;
        double sigma = 0.0;
        Level level = Level::pass;
    };
    Direction ab{&link.a, link.a_to_b_gbs, link.a_to_b_samples};
    Direction ba{&link.b, link.b_to_a_gbs, link.b_to_a_samples};
    for (Direction* direction : {&ab, &ba}) {
        direction->ratio = ratio_to(direction->gbs, link.reference_gbs);
        direction->sigma = std::hypot(noise.of_median(direction->samples), noise.of_link_median(link.reference_links));
        direction->level =
            level_of(direction->ratio, effective_bounds(bands.link_warn, bands.link_fail, direction->sigma, sigmas));
    }
    const Direction* slow = ab.level == Level::fail && ba.level != Level::fail   ? &ab
                            : ba.level == Level::fail && ab.level != Level::fail ? &ba
                                                                                 : nullptr;
    if (slow == nullptr) return;
    const Direction& reverse = slow == &ab ? ba : ab;
    // The two directions apart by the FAIL band on each side (its square) and beyond their own
    // noise: each is one noisy figure, so two healthy single shots can each sit a band's width
    // from the reference the other way (a 6-node fleet at the virtual cluster's 0.3 spread read
    // 0.70 and 1.18, 0.59 apart).
    const double apart_sigma = std::hypot(noise.of_median(slow->samples), noise.of_median(reverse.samples));
    const Bounds apart =
        effective_bounds(bands.link_warn * bands.link_warn, bands.link_fail * bands.link_fail, apart_sigma, sigmas);
    if (level_of(ratio_to(slow->gbs, reverse.gbs), apart) != Level::fail) return;
    link.slow_from = *slow->from;
    link.reverse_gbs = reverse.gbs;
    link.reverse_ratio = reverse.ratio;
    link.bandwidth_gbs = slow->gbs;
    link.samples = slow->samples;
    link.ratio = slow->ratio;
    link.sigma = slow->sigma;
    link.level = Level::fail;
}

}  // namespace

LinkJudgement judge_links(std::vector<NodeLink>& links, const std::vector<std::string>& nodes, const MeasurementNoise& noise,
                          const LinkBands& bands) {
    LinkJudgement judgement;
    if (links.empty()) return judgement;
    judgement.link_sigmas = family_sigmas(links.size(), bands);
    judgement.node_sigmas = family_sigmas(nodes.size(), bands);
    judgement.noise = noise;
    SortedLinks sorted(links, nodes);
    // The low mode from the repeats' noise; then twice: the first pass finds the healthy links
    // with the repeats' noise alone, their scatter is then the floor of every figure's noise, and
    // the second pass judges with both.
    sorted.set_floor(reference_floor(sorted, noise, bands));
    for (int pass = 0; pass < 2; ++pass) {
        for (std::size_t i = 0; i < links.size(); ++i)
            judge_link(links[i], i, sorted, judgement.noise, bands, judgement.link_sigmas);
        if (pass == 0) judgement.noise.between_sigma = between_link_sigma(links);
    }
    judgement.low_mode_links = static_cast<int>(sorted.floor());
    judgement.reference_floor_gbs = sorted.at(sorted.floor());
    for (const std::string& node : nodes)
        if (!sorted.own(node).empty())
            judgement.node_stats.push_back(node_statistic(node, sorted, judgement.noise, bands, judgement.node_sigmas));
    for (NodeLink& link : links) judge_directions(link, judgement.noise, bands, judgement.link_sigmas);
    return judgement;
}

}  // namespace shakedown::analysis
