// How ib_perf turns the sweeps of this rank's pairs into its result: one sample row per
// (pair, operation, size), and per operation the worst pair's median and tail latency at the
// smallest size, bandwidth at the largest beside the port's nominal rate, and message rate.
#pragma once

#include "core/result.hpp"
#include "ib/verbs/rc_protocol.hpp"

#include <optional>
#include <vector>

namespace shakedown::ib {

struct PairSweep {
    int peer_world_rank = 0;
    SweepOutcome outcome;
};

SampleTable perf_sample_table();
void add_pair_samples(SampleTable& samples, const PairSweep& sweep);
// `port_rate_gbps`: the nominal port rate (one direction), put beside the bandwidth metrics.
void add_perf_metrics(TestResult& result, const std::vector<PairSweep>& sweeps, std::optional<double> port_rate_gbps);

}  // namespace shakedown::ib
