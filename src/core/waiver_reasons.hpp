// Waiver reasons the analyzer tells apart, declared once: the job was too small for the test
// (the launch's choice, not the node's), as opposed to a device the node lacks.
#pragma once

#include <string>
#include <string_view>

namespace shakedown {

inline constexpr std::string_view job_too_small_prefix = "needs at least ";

// "needs at least 2 ranks (this run has 1)"
inline std::string job_too_small_waiver(const std::string& needed, const std::string& has) {
    return std::string(job_too_small_prefix) + needed + " (" + has + ")";
}

inline bool is_job_too_small_waiver(std::string_view reason) { return reason.starts_with(job_too_small_prefix); }

}  // namespace shakedown
