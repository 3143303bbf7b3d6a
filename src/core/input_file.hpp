// Reading a whole input file (config, thresholds, topology, profile, run.json) safely: it must be
// a regular file, checked before it is opened (a FIFO would block the reader for ever, a device
// such as /dev/zero never ends, a folder reads as empty), and no larger than the caller's limit
// (input_limits.hpp), which is enforced while reading too.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace shakedown {

// The file's bytes. Throws InputError "<context><reason>", the reason one of "no such file",
// "not a regular file (a FIFO)", "too large (20000000 bytes; at most 16777216)", "cannot read
// it: <errno text>". `context` names the file and what it is for ("cannot read config file 'x': ").
std::string read_input_file(const std::filesystem::path& path, std::uintmax_t max_bytes, const std::string& context);

}  // namespace shakedown
