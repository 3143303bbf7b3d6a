// Slurm hostlist expressions, the compact node lists Slurm prints and accepts everywhere
// (SLURM_JOB_NODELIST, sinfo, --nodelist): `node[01-16,20],gpu-a[1-3]`, `rack[1-2]-node[1-4]`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::slurm {

// A hostlist that would expand to more names than this is refused (a typo such as
// `node[1-99999999]` must not eat the memory of a login node).
inline constexpr std::size_t max_hostlist_names = 1'000'000;
// Slurm refuses one range of more names than this (`node[1-65537]`: "Too many hosts in range").
inline constexpr std::uint64_t max_hostlist_range = 65'536;

// Expands an expression into node names, in the order written, with Slurm 22.05's grammar
// (`scontrol show hostnames`, checked against it in tests/slurm/hostlist_test.cpp): names are
// separated by commas or whitespace outside brackets, empty ones dropped (`node1 node2`,
// `node[1-2],`); a bracket holds numbers and ranges `lo-hi` (lo <= hi, at most
// max_hostlist_range names each), and the width of `lo` is the zero padding (`[08-10]` -> 08 09
// 10, `[8-010]` -> 8 9 10). Text may come before and between bracket groups, never after the
// last one (`node[1-3]x` is refused, as Slurm refuses it). Several groups expand as a product in
// Slurm's order (the last group fastest). Names may contain letters, digits, '-', '_' and '.'.
// Throws InputError with a message naming the expression and the problem for empty input,
// unbalanced or nested brackets, bad numbers, reversed ranges, text after the last bracket and
// expansions beyond max_hostlist_names. Stricter than Slurm where Slurm prints garbage or
// nothing: `node[1-2` (Slurm: "node]"), `n[1-]`, other characters in names, an empty list.
std::vector<std::string> expand_hostlist(std::string_view expression);

// The same, counting the names against what a whole file may expand to: `names_left` starts at
// max_hostlist_names for the file (a topology.conf, a profile) and each expression takes its names
// from it, so many expressions of a million names each cannot together fill the memory (a 4.9 KB
// topology.conf expanded to 2.7 GB). Throws InputError, naming the file-wide limit, when the
// expression needs more names than are left; `names_left` is then unchanged.
std::vector<std::string> expand_hostlist(std::string_view expression, std::size_t& names_left);

// The shortest bracket form of a list of names: names that end in a number and differ only in
// it share one bracket group (`node01,node02,node03,node07` -> `node[01-03,07]`); a name with
// text after its last number (`node1-ib`) stays as written, since Slurm allows no text after a
// bracket. Duplicates are dropped; groups appear in the order of their first name, numbers
// ascending within a group. The result expands back to the same set of names.
std::string compress_hostlist(const std::vector<std::string>& names);

}  // namespace shakedown::slurm
