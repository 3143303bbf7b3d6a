#include "kernels/cg/cg_kernel_timing.hpp"

#include "stats/summary.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <vector>

namespace shakedown::kernels::cg {

void add_kernel_timing(const CgBackend::KernelTimes& times, double solve_iteration_s,
                       std::map<std::string, std::string>& parameters) {
    std::string bytes, seconds, gbs;
    std::vector<double> sums(times.span_s.size(), 0.0);
    for (std::size_t n = 0; n < times.names.size(); ++n) {
        const std::vector<double>& each = times.seconds.at(n);
        for (std::size_t i = 0; i < each.size() && i < sums.size(); ++i) sums[i] += each[i];
        const double median = each.empty() ? 0.0 : stats::median(each);
        const char* separator = n == 0 ? "" : ", ";
        bytes += fmt::format("{}{} {:.0f}", separator, times.names[n], times.bytes.at(n));
        seconds += fmt::format("{}{} {:.3g}", separator, times.names[n], median);
        gbs += fmt::format("{}{} {:.0f}", separator, times.names[n], median > 0.0 ? times.bytes.at(n) / median * 1e-9 : 0.0);
    }
    parameters["kernel_timing_iterations"] = std::to_string(times.span_s.size());
    parameters["kernel_bytes"] = bytes;
    parameters["kernel_seconds"] = seconds;
    parameters["kernel_gbs"] = gbs;
    parameters["kernel_sum_s"] = fmt::format("{:.4g}", sums.empty() ? 0.0 : stats::median(sums));
    parameters["kernel_span_s"] = fmt::format("{:.4g}", times.span_s.empty() ? 0.0 : stats::median(times.span_s));
    parameters["kernel_back_to_back_s"] = fmt::format("{:.4g}", times.back_to_back_s);
    parameters["solve_iteration_s"] = fmt::format("{:.4g}", solve_iteration_s);
}

}  // namespace shakedown::kernels::cg
