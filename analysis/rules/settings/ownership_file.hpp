// The site's ownership costs for the Price section's rent against buy (report/rent_or_buy.hpp):
// a small YAML given with --ownership, read and checked before any trace (as the thresholds file).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace shakedown::analysis {

inline constexpr double max_energy_price = 1e6;  // per kWh: far above any tariff, in any currency

struct OwnershipInputs {
    std::string source;  // the file, for the report
    double purchase_per_node = 0.0;
    double depreciation_months = 0.0;
    double hosting_per_node_month = 0.0;
    double pue = 1.0;
    std::optional<double> energy_per_kwh;
    std::optional<double> node_power_w;
};

// Every problem is one InputError line naming the file and line: a missing or unknown key, a value
// that is not a finite number in its range.
OwnershipInputs parse_ownership(const std::string& yaml, const std::string& source);
OwnershipInputs read_ownership_file(const std::filesystem::path& path);

}  // namespace shakedown::analysis
