// Every name `dgemm_fp64`'s results carry that another layer reads, declared once: the
// declaration (dgemm_fp64_spec.cpp), the test, and the analyzer read these constants.
#pragma once

#include "core/energy_declaration.hpp"

#include <string_view>

namespace shakedown::kernels::dgemm_names {

inline constexpr std::string_view key = "dgemm_fp64";

inline constexpr std::string_view tflops = "dgemm_fp64.tflops";          // median repetition
inline constexpr std::string_view tflops_max = "dgemm_fp64.tflops_max";  // best repetition
inline constexpr std::string_view tflops_min = "dgemm_fp64.tflops_min";  // worst repetition
// Host runs: one core's FMA peak at the CPU's widest vectors.
inline constexpr std::string_view core_peak_gflops = "dgemm_fp64.core_peak_gflops";

// Joules per TFLOP of the timed repetitions (the median repetition's rate), and usable TFLOP/s per
// watt beside the nominal's per watt of the power limit.
inline constexpr EnergyDeclaration energy{.test = key,
                                          .units = {{{.unit = "TFLOP", .rate_metric = tflops}, {}}},
                                          .per_watt_metric = tflops,
                                          .per_watt_unit = "TFLOP/s per W"};

}  // namespace shakedown::kernels::dgemm_names
