// Every name `lu_fp64`'s results carry that another layer reads, declared once: the declaration
// (lu_fp64_spec.cpp), the test, and the analyzer read these constants.
#pragma once

#include "core/energy_declaration.hpp"

#include <string_view>

namespace shakedown::kernels::lu_names {

inline constexpr std::string_view key = "lu_fp64";

inline constexpr std::string_view tflops = "lu_fp64.tflops";          // median repetition, HPL's rate
inline constexpr std::string_view tflops_max = "lu_fp64.tflops_max";  // best repetition
inline constexpr std::string_view tflops_min = "lu_fp64.tflops_min";  // worst repetition
inline constexpr std::string_view solve_s = "lu_fp64.solve_s";        // median factorization + solve
inline constexpr std::string_view scaled_residual = "lu_fp64.scaled_residual";
// Result parameter on the host: the process grid the factorization used ("2x1").
inline constexpr std::string_view grid_used = "grid_used";

// Joules per LU solve (factorization and solve, the median repetition's seconds) and HPL TFLOP/s
// per watt beside the nominal's per watt of the power limit.
inline constexpr EnergyDeclaration energy{.test = key,
                                          .units = {{{.unit = "LU solve", .rate_metric = solve_s, .seconds_per_unit = true}, {}}},
                                          .per_watt_metric = tflops,
                                          .per_watt_unit = "TFLOP/s per W"};

}  // namespace shakedown::kernels::lu_names
