// The bounds on what shakedown reads from outside: the files it is given and the numbers in them.
// Declared once here, used by every reader; docs/input-limits.md lists them in one table.
#pragma once

#include <cstddef>
#include <cstdint>

namespace shakedown::input_limits {

// A YAML or JSON file given to a program (config, thresholds, topology, profile). Real ones are
// a few KiB; the limit stops a huge or endless file (/dev/zero) before it is read into memory.
inline constexpr std::uintmax_t max_text_file_bytes = std::uintmax_t{16} << 20;  // 16 MiB

// Ranks in one run: run.json's world_size and a trace's. Larger figures are damage, and the
// loader allocates one record per rank before it reads a trace.
inline constexpr int max_world_size = 1 << 20;  // 1,048,576

// GPUs one rank may see: run.json's `gpu` (a CUDA ordinal) is below this.
inline constexpr int max_gpus_per_node = 1024;

// run.json holds one entry per rank (about 300 bytes each as the driver writes it), so its limit
// follows from max_world_size rather than from max_text_file_bytes.
inline constexpr std::uintmax_t max_run_json_bytes = std::uintmax_t{max_world_size} * 512;  // 512 MiB

// A watchdog deadline or grace period, in seconds: 30 days. Far beyond any test (the longest
// default is 1800 s) and far below where a steady_clock time point overflows (292 years).
inline constexpr double max_deadline_s = 30.0 * 24 * 3600;

// The telemetry sampler's rate. One sample of the host sources takes about 80 us (the sampler
// tops out near 12.5 kHz, slowing the tests 4-10x); at 100 Hz it costs under 1 % of a core, and
// a 2-hour run's host table stays far below the reader's 1 GiB per table.
inline constexpr double max_telemetry_rate_hz = 100.0;

// A run folder's name (--name, `name:`): one file name, which Linux file systems hold to 255
// bytes (NAME_MAX). Checked before MPI starts, so a long name is one line, not a failed mkdir.
inline constexpr std::size_t max_file_name_bytes = 255;

// A run's tag (--tag, `tag:`): part of the default folder name "YYYYmmdd-HHMMSS-TAG-jobID-N",
// which must stay within max_file_name_bytes (15 + 1 + 200 + 24 for the job id and attempt).
inline constexpr std::size_t max_tag_bytes = 200;

// Sections nested in a report template (--template-dir): the built-in ones nest 6 deep. The
// template library parses and renders by recursion, copying as it goes, so 10,000 nested sections
// cost 1.1 GB and 100,000 ran out of memory; the depth is counted before the library sees the text.
inline constexpr std::size_t max_template_section_depth = 64;

}  // namespace shakedown::input_limits
