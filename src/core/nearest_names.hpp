// The names nearest a misspelt one ("did you mean 'stream'?"): for unknown tests on the command
// line and in configs, and unknown metrics in a thresholds file.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown {

// Edits (insert, delete, substitute) that turn `a` into `b`.
std::size_t edit_distance(std::string_view a, std::string_view b);

// Up to `count` of `names`, nearest `key` first (ties in name order), each once.
std::vector<std::string> nearest_names(std::string_view key, const std::vector<std::string>& names, std::size_t count);

// " (did you mean 'stream'?)" when a name is within a third of `key`'s length in edits (at least
// two), "" otherwise: a suggestion only where it is likely meant.
std::string did_you_mean(std::string_view key, const std::vector<std::string>& names);

}  // namespace shakedown
