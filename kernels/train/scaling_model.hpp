// The prediction train_step puts beside its measured scaling: a data-parallel step's time from
// the same run's own figures. Compute comes from the phase where every GPU runs the step alone
// (when each gradient bucket was complete, when the backward ended); communication from the
// gradient bytes and the all-reduce bus bandwidth measured in the same job; overlap as the step
// schedules it: the buckets' sums run one after another on one stream, each starting when its
// bucket is complete and the previous sum has ended.
#pragma once

#include <vector>

namespace shakedown::kernels::train {

// nccl-tests' bus bandwidth of an all-reduce of `bytes` over `ranks` that took `seconds`:
// bytes / seconds * 2 (ranks - 1) / ranks, in GB/s; 0 for one rank (nothing crosses a link).
double allreduce_bus_gbs(double bytes, int ranks, double seconds);
// The time that bus bandwidth gives an all-reduce of `bytes` over `ranks`; 0 for one rank.
double allreduce_seconds(double bytes, int ranks, double bus_gbs);

// The step's time when bucket i is ready at ready_s[i], its sum takes comm_s[i], sums run in
// bucket order one at a time, and the compute ends at compute_s.
double overlapped_step_s(const std::vector<double>& ready_s, double compute_s, const std::vector<double>& comm_s);

// Element-wise median over ranks of per-bucket times (each rank's vector the same length).
std::vector<double> median_per_bucket(const std::vector<std::vector<double>>& per_rank);

}  // namespace shakedown::kernels::train
