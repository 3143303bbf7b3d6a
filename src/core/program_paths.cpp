#include "core/program_paths.hpp"

#include "core/build_tree_programs.hpp"

#include <unistd.h>

#include <cstdlib>
#include <iterator>
#include <string>
#include <system_error>

namespace shakedown {
namespace {

namespace fs = std::filesystem;

bool is_executable_file(const fs::path& path) {
    std::error_code error;
    return fs::is_regular_file(path, error) && ::access(path.c_str(), X_OK) == 0;
}

// Where `program` lies in the build tree of `self`, when `self` is one of the build tree's own
// programs at its own place (BUILD/<its relative path>).
std::optional<fs::path> in_build_tree(std::string_view program, const fs::path& self) {
    const auto& programs = build_tree_programs();
    const auto mine = programs.find(self.filename().string());
    const auto wanted = programs.find(std::string(program));
    if (mine == programs.end() || wanted == programs.end()) return std::nullopt;
    // Strip the relative path of `self` component by component from the end.
    fs::path root = self;
    for (auto part = std::prev(mine->second.end());; --part) {
        if (root.filename() != *part) return std::nullopt;
        root = root.parent_path();
        if (part == mine->second.begin()) break;
    }
    return root / wanted->second;
}

}  // namespace

fs::path this_executable() {
    std::error_code error;
    auto path = fs::read_symlink("/proc/self/exe", error);
    return error ? fs::path() : path;
}

std::optional<fs::path> find_companion_program(std::string_view program, const fs::path& self,
                                               std::string_view path_env) {
    if (!self.empty()) {
        if (const auto beside = self.parent_path() / program; is_executable_file(beside)) return beside;
        if (const auto built = in_build_tree(program, self); built && is_executable_file(*built)) return built;
    }
    std::size_t start = 0;
    while (start <= path_env.size()) {
        const auto colon = path_env.find(':', start);
        const auto folder = path_env.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start);
        // An empty PATH entry means the working folder; a companion is never taken from there.
        if (!folder.empty()) {
            if (const auto candidate = fs::path(folder) / program; is_executable_file(candidate)) return candidate;
        }
        if (colon == std::string_view::npos) break;
        start = colon + 1;
    }
    return std::nullopt;
}

std::optional<fs::path> find_companion_program(std::string_view program) {
    const char* path = std::getenv("PATH");
    return find_companion_program(program, this_executable(), path ? path : "");
}

std::optional<fs::path> installed_data_file(const fs::path& relative, const fs::path& self) {
    if (self.parent_path().filename() != "bin") return std::nullopt;
    const auto candidate = self.parent_path().parent_path() / "share" / "shakedown" / relative;
    std::error_code error;
    if (!fs::is_regular_file(candidate, error)) return std::nullopt;
    return candidate;
}

}  // namespace shakedown
