// The Energy section: what a unit of work cost from the run's own power readings
// (energy/energy_figures.hpp): per GPU and test its timed phase, mean power and where it came
// from, joules per unit and rate per watt beside the nominal per watt; per test the median over
// its GPUs; and every figure that could not be measured, with the reason.
#pragma once

#include "analysis/energy/energy_figures.hpp"
#include "analysis/report/workload_section.hpp"

#include <string>
#include <vector>

namespace shakedown::analysis {

WorkloadTable energy_table(const std::vector<EnergyRow>& rows);
std::vector<std::string> energy_lines(const std::vector<EnergyRow>& rows);

}  // namespace shakedown::analysis
