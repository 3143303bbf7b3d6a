// Where a shakedown program finds its companion programs and its installed data, so that the
// same binary works from the build tree and from an installed prefix (`cmake --install`):
//   installed:  PREFIX/bin/shakedown  ->  PREFIX/bin/shakedown-analyze, PREFIX/share/shakedown/...
//   build tree: BUILD/src/driver/shakedown  ->  BUILD/analysis/shakedown-analyze
// The build tree's layout is recorded as paths relative to the build folder, so no absolute
// build path is compiled into a binary that may be installed elsewhere.
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

namespace shakedown {

// The running executable (/proc/self/exe); empty when it cannot be read.
std::filesystem::path this_executable();

// `program` (e.g. "shakedown-analyze") for the executable `self`: beside it, else at its place
// in the build tree `self` belongs to, else the first executable of that name on `path_env`
// (a PATH-style list). Nothing when none of them exists.
std::optional<std::filesystem::path> find_companion_program(std::string_view program, const std::filesystem::path& self,
                                                            std::string_view path_env);
// The same for the running executable and the environment's PATH.
std::optional<std::filesystem::path> find_companion_program(std::string_view program);

// PREFIX/share/shakedown/<relative> when `self` is PREFIX/bin/<name> and that file exists.
std::optional<std::filesystem::path> installed_data_file(const std::filesystem::path& relative,
                                                         const std::filesystem::path& self);

}  // namespace shakedown
