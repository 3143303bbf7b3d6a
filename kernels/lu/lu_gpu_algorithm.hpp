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
// DGEMM runs near its peak (k = block) and narrow enough that the panel's getrf hides behind it:
// on an H200 at n 94208, blocks 512 / 1024 / 1536 / 2048 gave 0.74 / 0.78 / 0.79 / 0.80 of DGEMM
// (docs/benchmarks.md, lu_fp64). On the host ScaLAPACK's usual 128.
inline constexpr int default_gpu_block = 2048;
inline constexpr int default_host_block = 128;

// How much of the memory the matrix takes and how long a factorization lasts where they are
// auto. A GPU LU's efficiency rises with n until the panels' share vanishes (H200, look-ahead:
// 0.68 of DGEMM at n 48384, 0.80 at 94208, 0.82 at 118784), so a GPU gets most of its memory and
// seconds enough for that n, as HPL sizes its matrix to most of the memory; a host rank shares
// its node's memory and cores with the rest of the job.
inline constexpr double default_gpu_memory_fraction = 0.6;
inline constexpr double default_host_memory_fraction = 0.25;
inline constexpr double default_gpu_target_s = 20.0;
inline constexpr double default_host_target_s = 3.0;

}  // namespace shakedown::kernels::lu
