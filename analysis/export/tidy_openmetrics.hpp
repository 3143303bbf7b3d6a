// The tidy rows in the OpenMetrics text format, for node_exporter's textfile collector, named as
// Prometheus' conventions say (https://prometheus.io/docs/practices/naming/):
//  - one gauge family per shakedown metric, in base units: stream.triad_gbs (GB/s) is
//    shakedown_stream_triad_bytes_per_second, its values x 1e9, with `# UNIT ... bytes_per_second`
//    (the unit table is in tidy_openmetrics.cpp); its nominal, where a row has one, in
//    shakedown_stream_triad_nominal_bytes_per_second; `# HELP` the metric's declared description;
//  - labels node, rank, gpu_uuid, test: what the figure is of, and nothing that changes from run
//    to run, so a rank's figure is one series over every run;
//  - the run itself once, as shakedown_run_info{run_id, run_uuid, shakedown_version} 1;
//  - the levels in one family, shakedown_metric_level, with the metric's name as a label;
// no timestamps (the collector refuses them); label values escaped as the format says (\\, \", \n);
// `# EOF` at the end.
#pragma once

#include "analysis/export/tidy_rows.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace shakedown::analysis {

// The families every export has, whatever its metrics: what dashboards and alerts query, declared once.
inline constexpr const char* openmetrics_run_info_family = "shakedown_run_info";
inline constexpr const char* openmetrics_level_family = "shakedown_metric_level";

// Which run the rows are of (run.json's): the labels of shakedown_run_info.
struct OpenMetricsRun {
    std::string_view run_id;
    std::string_view run_uuid;
    std::string_view shakedown_version;
};

// A unit's base unit as Prometheus names it ("bytes_per_second"; "" for a unit not in the table:
// then no UNIT line and the value as measured) and the factor to it, 10^decimal_exponent x
// binary_factor (a power of two: bits to bytes, GiB). The power of ten moves the decimal point of
// the value as written (the shortest form that reads back as it), so 4.1 GB/s is 4100000000 bytes/s
// and 12.3 us 1.23e-05 s, where 4.1 x 1e9 in binary is 4099999999.9999995.
struct OpenMetricsUnit {
    std::string_view base;
    int decimal_exponent = 0;
    double binary_factor = 1.0;
    double to_base(double value) const;
};
OpenMetricsUnit openmetrics_unit(std::string_view unit);

// The family a metric's values go to when no other metric of the export claims the same name:
// "shakedown_" + the metric's name with the unit's own word dropped (stream.triad_gbs: "gbs"),
// every character outside [a-zA-Z0-9_] as "_", + "_" + the base unit.
std::string openmetrics_family_name(std::string_view metric, std::string_view unit);

std::string tidy_openmetrics(const std::vector<TidyRow>& rows, const OpenMetricsRun& run);

}  // namespace shakedown::analysis
