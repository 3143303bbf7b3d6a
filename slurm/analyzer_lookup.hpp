// Which shakedown-analyze a generated job runs, decided when the job is generated: a job that
// would run every test and then fail its verdict with "command not found" (exit 127) is refused
// before it is submitted. (The lookup lives here until src/core has a shared "program beside this
// one" helper.)
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

namespace shakedown::slurm {

inline constexpr std::string_view analyzer_program = "shakedown-analyze";

// Where a build tree keeps the analyzer, for a shakedown that is itself in that build tree.
struct BuildTree {
    std::filesystem::path folder;    // the CMake build folder
    std::filesystem::path analyzer;  // its shakedown-analyze
};
// The build tree this binary was compiled in (none in a build without the analyzer target).
std::optional<BuildTree> compiled_build_tree();

// No --analyzer given: shakedown-analyze beside `shakedown` (an installed PREFIX/bin, or a
// folder both were copied to), else the build tree's when `shakedown` is in it, else the first
// in `path_env` (a PATH value). Returns an absolute path. Throws InputError naming the places
// looked at when none has an executable shakedown-analyze.
std::filesystem::path find_analyzer(const std::filesystem::path& shakedown, std::string_view path_env,
                                    const std::optional<BuildTree>& build_tree);

// --analyzer given: a path must be an executable file (made absolute); a bare name must be found
// in `path_env` and stays bare (the node looks it up again in its own PATH). Throws InputError.
std::filesystem::path check_analyzer(const std::filesystem::path& given, std::string_view path_env);

}  // namespace shakedown::slurm
