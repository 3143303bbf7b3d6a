// cg_fp64's kernel_timing diagnostic as result parameters: the medians of the backend's
// per-kernel event times (CgBackend::time_kernels) with each kernel's effective GB/s from its
// own minimal bytes, and the iteration's kernel sum beside the measured iteration times.
#pragma once

#include "kernels/cg/cg_backend.hpp"

#include <map>
#include <string>

namespace shakedown::kernels::cg {

constexpr int kernel_timing_iterations = 20;

// kernel_bytes, kernel_seconds, kernel_gbs ("name value, ..." in launch order), kernel_sum_s,
// kernel_span_s, kernel_back_to_back_s and solve_iteration_s (the timed solves' median seconds
// per iteration, passed in).
void add_kernel_timing(const CgBackend::KernelTimes& times, double solve_iteration_s,
                       std::map<std::string, std::string>& parameters);

}  // namespace shakedown::kernels::cg
