// The names of `stream`'s figures another layer reads, declared once: its declaration
// (stream_spec.cpp, which makes every kernel's names from the kernel table) and the analyzer read
// these constants.
#pragma once

#include <string_view>

namespace shakedown::kernels::stream_names {

inline constexpr std::string_view key = "stream";

inline constexpr std::string_view triad_gbs = "stream.triad_gbs";  // the median repetition
// The best repetition: on the host, summed over a node's ranks, the node's memory bandwidth that
// bounds any transfer within the node (analysis/rules/figures/credibility_rule).
inline constexpr std::string_view copy_max_gbs = "stream.copy_max_gbs";
inline constexpr std::string_view triad_max_gbs = "stream.triad_max_gbs";

}  // namespace shakedown::kernels::stream_names
