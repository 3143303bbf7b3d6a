// How the GPU LU factors (lu_fp64's `gpu_algorithm`): the look-ahead LU (lookahead_lu.hpp: panel
// k + 1 on a second stream while the trailing matrix takes panel k's update), or cuSOLVER's
// getrf of the whole matrix (each panel on the critical path). The names, declared once for the
// spec's choices, the engine and the trace.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace shakedown::kernels::lu {

enum class GpuLuAlgorithm { lookahead, cusolver };

inline constexpr std::string_view lookahead_name = "lookahead";
inline constexpr std::string_view cusolver_name = "cusolver";

inline std::string to_string(GpuLuAlgorithm algorithm) {
    return std::string(algorithm == GpuLuAlgorithm::lookahead ? lookahead_name : cusolver_name);
}

inline std::optional<GpuLuAlgorithm> parse_gpu_algorithm(std::string_view text) {
    if (text == lookahead_name) return GpuLuAlgorithm::lookahead;
    if (text == cusolver_name) return GpuLuAlgorithm::cusolver;
    return std::nullopt;
}

// The panel width where `block` is auto: on the GPU a panel must be wide enough that the trailing
// DGEMM runs near its peak (k = block) and narrow enough that the panel's getrf hides behind it;
// 512-2048 is the usual range for an H100/H200-class part. On the host ScaLAPACK's usual 128.
inline constexpr int default_gpu_block = 1024;
inline constexpr int default_host_block = 128;

}  // namespace shakedown::kernels::lu
