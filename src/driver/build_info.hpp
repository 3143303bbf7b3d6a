// What this binary is and was built with (`shakedown --version`, `shakedown version`).
#pragma once

#include <string>
#include <string_view>

namespace shakedown {

// Version, git commit, compiler, the optional features with what each was built against, the
// CUDA architectures, MPI and HDF5 (built against, and the library loaded now).
std::string build_info();

std::string_view build_git_commit();  // "1a2b3c4d5e6f", "1a2b3c4d5e6f-dirty" or "unknown"

}  // namespace shakedown
