// Which shakedown-analyze a generated job runs, decided when the job is generated: a job that
// would run every test and then fail its verdict with "command not found" (exit 127) is refused
// before it is submitted. Where to look is core/program_paths.hpp's (beside, build tree, PATH);
// this adds the refusal and the check of an --analyzer given by hand.
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

namespace shakedown::slurm {

inline constexpr std::string_view analyzer_program = "shakedown-analyze";

// No --analyzer given: shakedown-analyze beside `shakedown` (an installed PREFIX/bin, or a
// folder both were copied to), else at its place in the build tree `shakedown` is part of, else
// the first in `path_env` (a PATH value). Returns an absolute path. Throws InputError naming the
// places looked at when none has an executable shakedown-analyze.
std::filesystem::path find_analyzer(const std::filesystem::path& shakedown, std::string_view path_env);

// --analyzer given: a path must be an executable file (made absolute); a bare name must be found
// in `path_env` and stays bare (the node looks it up again in its own PATH). Throws InputError.
std::filesystem::path check_analyzer(const std::filesystem::path& given, std::string_view path_env);

}  // namespace shakedown::slurm
