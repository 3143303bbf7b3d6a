// The names the driver adds to a test's result on a rank (not the test's own), declared once:
// the driver writes them, the analyzer reads them.
#pragma once

#include <string_view>

namespace shakedown::driver_names {

// Seconds the rank's whole process stood still inside the test, summed over each stretch longer
// than watchdog.freeze_report_s (SIGSTOP, a paused VM, a node swapping); absent when none.
inline constexpr std::string_view frozen_s = "frozen_s";
// How many such stretches.
inline constexpr std::string_view freezes = "freezes";

}  // namespace shakedown::driver_names
