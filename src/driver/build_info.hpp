// What this binary is and was built with (`shakedown --version`, `shakedown version`).
#pragma once

#include "core/git_commit.hpp"

#include <string>

namespace shakedown {

// Version, git commit, compiler, the optional features with what each was built against, the
// CUDA architectures, MPI and HDF5 (built against, and the library loaded now).
std::string build_info();


}  // namespace shakedown
