// Price per usable throughput: given a node price (per hour, or per month = 730 hours), the
// price of one usable FP64 TFLOP/s (dgemm_fp64.tflops summed over a node's ranks), one usable
// BF16 TFLOP/s (gemm_ladder.bf16_tflops, summed) and one GB/s of NCCL all_reduce bus bandwidth
// (nccl.all_reduce_busbw_gbs, a job-wide figure: the node's median), per node and for the fleet,
// beside the same price per nominal unit.
#pragma once

#include "analysis/report/node_metrics.hpp"
#include "analysis/rules/settings/analysis_settings.hpp"

#include <optional>
#include <string>
#include <vector>

namespace shakedown::analysis {

struct PriceLine {
    std::string quantity;  // "FP64 TFLOP/s"
    std::string metric;    // "dgemm_fp64.tflops"
    std::optional<double> usable;
    std::optional<double> nominal;
    std::optional<double> per_usable_hour;   // price per hour of one usable unit
    std::optional<double> per_nominal_hour;
};

struct NodePrice {
    std::string node;
    std::vector<PriceLine> lines;
};

struct PriceReport {
    double node_hour_price = 0.0;
    std::string currency;
    std::vector<NodePrice> nodes;
    std::vector<PriceLine> fleet;  // fleet price per hour over the fleet's usable sum (NCCL: over its median)
};

// "12.5 EUR", "1234 EUR": a price as the reports print it.
std::string money(double value, const std::string& currency);

std::optional<PriceReport> make_price_report(const std::vector<NodeMetrics>& nodes, const AnalysisSettings& settings);

}  // namespace shakedown::analysis
