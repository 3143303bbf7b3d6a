// The git commit a binary is built from ("1a2b3c4d5e6f", "1a2b3c4d5e6f-dirty" or "unknown"),
// generated at every build by cmake/git_commit.cmake into the small library shakedown_git_commit
// that the programs link (`shakedown --version`, `shakedown-analyze --version`).
#pragma once

#include <string_view>

namespace shakedown {

std::string_view build_git_commit();

}  // namespace shakedown
