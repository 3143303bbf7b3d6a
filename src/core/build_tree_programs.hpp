// The build tree's programs and where each lies, relative to the build folder
// ("shakedown-analyze" -> analysis/shakedown-analyze). Generated at CMake's generate step
// (build_tree_programs.cpp) from the targets' own output paths, so it follows the build.
#pragma once

#include <filesystem>
#include <map>
#include <string>

namespace shakedown {

const std::map<std::string, std::filesystem::path>& build_tree_programs();

}  // namespace shakedown
