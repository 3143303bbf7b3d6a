// Per node and metric: the value over the node's ranks (median, min, max, sum), the nominal,
// and usable / nominal: what summary.json, the HTML bars, the markdown table and the price
// figures show beside each verdict.
#pragma once

#include "analysis/load/observations.hpp"
#include "core/result.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::analysis {

struct NodeMetric {
    std::string name;
    std::string unit;
    Better better = Better::higher;
    int ranks = 0;
    double median = 0.0;
    double min = 0.0;
    double max = 0.0;
    double sum = 0.0;                      // e.g. the node's FP64 TFLOP/s over its GPUs
    std::optional<double> nominal;         // median of the ranks' nominal figures
    std::optional<double> nominal_sum;
    // Each rank's own value (rank order): the per-GPU marks on the report's bars, so one bad GPU
    // of eight shows even where the node's worst is all a bar can show.
    struct Device {
        int rank = 0;
        std::optional<int> gpu;
        double value = 0.0;
    };
    std::vector<Device> devices;

    // The node's worst device (rank): its lowest value, its highest when lower is better. A node is
    // as good as its worst GPU, so bars and fractions show that one, not the median.
    double worst() const { return better == Better::lower ? max : min; }
    std::optional<double> usable_fraction() const;  // worst / nominal (nominal / worst when lower is better)
};

struct NodeMetrics {
    std::string node;
    std::vector<NodeMetric> metrics;  // by name
    const NodeMetric* find(std::string_view name) const;
};

// In run order; non-finite values and waived tests are left out.
std::vector<NodeMetrics> summarize_node_metrics(const Observations& observations);

}  // namespace shakedown::analysis
