#include "health/specs.hpp"

#include "core/input_limits.hpp"
#include "core/registry.hpp"

namespace shakedown::health {
namespace {

// "burnin.<quantity>" for the GPU, "burnin.host_<quantity>" for the host cores.
std::string lanes(const char* quantity) { return std::string("burnin.{,host_}") + quantity; }

}  // namespace

const TestSpec& burnin_spec() {
    static const TestSpec spec{
        .key = "burnin",
        .description = "Sustained FP64 DGEMM per GPU (and host cores) in validated windows with 10 Hz telemetry, drift and throttling",
        .suites = {"burnin", "quick"},
        .parameters =
            {
                ParamSpec::real("duration_s", 600.0, "seconds under load")
                    .above(0)
                    .at_most(input_limits::max_deadline_s)
                    .in_suite("quick", 60.0),
                ParamSpec::real("window_s", 10.0, "window length: one rate, one validation, one telemetry summary each")
                    .above(0)
                    .at_most(input_limits::max_deadline_s),
                ParamSpec::flag("host", false, "also load the host cores (alone on a node without GPU)"),
                ParamSpec::integer("gpu_n", 8192, "matrix order on the GPU").between(1, 1 << 20),
                ParamSpec::integer("host_n", 1024, "matrix order on the host").between(1, 1 << 20),
                ParamSpec::real("max_temp_c", 75.0, "temperature above which the run is noted as hot (WARN in the analyzer)")
                    .between(0, 150),
                ParamSpec::real("telemetry_hz", 10.0, "telemetry samples per second during the windows").above(0).at_most(1000),
            },
        .metrics =
            {
                {lanes("{tflops,tflops_first_window,tflops_last_window}"), "TFLOP/s", Better::higher,
                 "median, first and last window's rate"},
                {lanes("drift_pct"), "%", Better::higher, "last window's rate over the first's, in per cent change"},
                {lanes("wrong_windows_count"), "count", Better::lower, "windows whose product was wrong"},
                {lanes("{clock_median_mhz,clock_min_mhz}"), "MHz", Better::higher, "clock under load"},
                {lanes("max_temperature_c"), "C", Better::lower, "hottest reading"},
                {lanes("power_median_w"), "W", Better::lower, "median power draw"},
                {lanes("{power_capped_share,thermal_share,hw_slowdown_share,hw_power_brake_share}"), "1", Better::lower,
                 "share of samples with each throttle reason"},
                {lanes("{ecc_corrected_increment,ecc_uncorrected_increment}"), "count", Better::lower,
                 "ECC errors counted during the run"},
            },
        .samples = {{"target", "0=gpu,1=host"}, {"window", "index"}, {"seconds", "s"}, {"gemms", "count"}, {"tflops", "TFLOP/s"}, {"valid", "bool"}, {"clock_median_mhz", "MHz"}, {"clock_min_mhz", "MHz"}, {"temperature_max_c", "C"}, {"power_median_w", "W"}, {"power_capped_share", "1"}, {"thermal_share", "1"}, {"hw_slowdown_share", "1"}, {"hw_power_brake_share", "1"}, {"ecc_corrected_increment", "count"}, {"ecc_uncorrected_increment", "count"}, {"telemetry_samples", "count"}},
        .default_deadline_s = 1200.0,  // ten minutes of load plus set-up
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(burnin_spec);

}  // namespace shakedown::health
