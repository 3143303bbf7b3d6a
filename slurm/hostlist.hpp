// Slurm hostlist expressions, the compact node lists Slurm prints and accepts everywhere
// (SLURM_JOB_NODELIST, sinfo, --nodelist): `node[01-16,20],gpu-a[1-3]`, `rack[1-2]-node[1-4]`.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::slurm {

// A hostlist that would expand to more names than this is refused (a typo such as
// `node[1-99999999]` must not eat the memory of a login node).
inline constexpr std::size_t max_hostlist_names = 1'000'000;

// Expands an expression into node names, in the order written. Commas separate names except
// inside brackets; a bracket holds numbers and ranges `lo-hi` (lo <= hi), and the width of
// `lo` is kept as zero padding (`[08-10]` -> 08 09 10). Several bracket groups in one name
// expand as a product, the last group varying fastest, as Slurm does. Names may contain
// letters, digits, '-', '_' and '.'.
// Throws InputError with a message naming the expression and the problem for empty input,
// unbalanced or nested brackets, bad numbers, reversed ranges, empty names and expansions
// beyond max_hostlist_names.
std::vector<std::string> expand_hostlist(std::string_view expression);

// The shortest bracket form of a list of names: names that differ only in their last number
// share one bracket group (`node01,node02,node03,node07` -> `node[01-03,07]`). Duplicates are
// dropped; groups appear in the order of their first name, numbers ascending within a group.
// The result expands back to the same set of names.
std::string compress_hostlist(const std::vector<std::string>& names);

}  // namespace shakedown::slurm
