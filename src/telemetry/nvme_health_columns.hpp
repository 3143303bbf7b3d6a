// The columns of the "nvme_health" telemetry table, declared once for the source that writes them
// (telemetry/nvme_health_telemetry.hpp) and the rule that judges them (analysis/rules/
// nvme_health_rule.hpp); header-only, so the analyzer does not link the sampler. One group per
// NVMe controller: "<controller>.<field>" (controller as /sys/class/nvme names it: nvme0, ...).
#pragma once

#include <array>
#include <string_view>

namespace shakedown::nvme_health_columns {

inline constexpr std::string_view table = "nvme_health";
inline constexpr std::string_view log_time = "log_t";  // when the row's log was read (column 1)

// Fields of the SMART / Health Information log page (NVMe base specification, log identifier 02h).
inline constexpr std::string_view critical_warning = "critical_warning";  // bit field, 0: none
inline constexpr std::string_view temperature_c = "temperature_c";        // composite temperature
inline constexpr std::string_view available_spare_pct = "available_spare_pct";
inline constexpr std::string_view available_spare_threshold_pct = "available_spare_threshold_pct";
inline constexpr std::string_view percentage_used = "percentage_used";  // wear estimate, may exceed 100
inline constexpr std::string_view media_errors = "media_errors";        // unrecovered data integrity errors, lifetime
inline constexpr std::string_view error_log_entries = "error_log_entries";

struct Field {
    std::string_view name;
    std::string_view unit;
};
inline constexpr std::array<Field, 7> fields{{{critical_warning, "bits"},
                                              {temperature_c, "C"},
                                              {available_spare_pct, "%"},
                                              {available_spare_threshold_pct, "%"},
                                              {percentage_used, "%"},
                                              {media_errors, "count"},
                                              {error_log_entries, "count"}}};

// Attributes per controller: "model.<c>", "serial.<c>", "firmware.<c>", and "not_available.<c>"
// saying why its log could not be read.
inline constexpr std::string_view model_prefix = "model.";
inline constexpr std::string_view serial_prefix = "serial.";
inline constexpr std::string_view firmware_prefix = "firmware.";
inline constexpr std::string_view not_available_prefix = "not_available.";

}  // namespace shakedown::nvme_health_columns
