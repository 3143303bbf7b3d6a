#include "slurm/analyzer_lookup.hpp"

#include "core/errors.hpp"
#include "core/printable_text.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <string>
#include <vector>

namespace shakedown::slurm {
namespace {

bool is_executable_file(const std::filesystem::path& path) {
    std::error_code error;
    return std::filesystem::is_regular_file(path, error) && ::access(path.c_str(), X_OK) == 0;
}

std::optional<std::filesystem::path> in_path(std::string_view name, std::string_view path_env) {
    std::size_t start = 0;
    while (start <= path_env.size()) {
        const auto end = std::min(path_env.find(':', start), path_env.size());
        // An empty PATH entry means the current folder, as for the shell.
        const std::filesystem::path folder(end == start ? "." : std::string(path_env.substr(start, end - start)));
        const auto candidate = folder / name;
        if (is_executable_file(candidate)) return std::filesystem::absolute(candidate).lexically_normal();
        start = end + 1;
    }
    return std::nullopt;
}

bool is_inside(const std::filesystem::path& path, const std::filesystem::path& folder) {
    const auto relative = std::filesystem::weakly_canonical(path).lexically_relative(std::filesystem::weakly_canonical(folder));
    return !relative.empty() && *relative.begin() != "..";
}

}  // namespace

std::optional<BuildTree> compiled_build_tree() {
#if defined(SHAKEDOWN_BUILD_FOLDER) && defined(SHAKEDOWN_BUILD_TREE_ANALYZER)
    return BuildTree{SHAKEDOWN_BUILD_FOLDER, SHAKEDOWN_BUILD_TREE_ANALYZER};
#else
    return std::nullopt;
#endif
}

std::filesystem::path find_analyzer(const std::filesystem::path& shakedown, std::string_view path_env,
                                    const std::optional<BuildTree>& build_tree) {
    std::vector<std::string> looked;
    if (shakedown.has_parent_path()) {
        const auto beside = std::filesystem::absolute(shakedown.parent_path() / analyzer_program).lexically_normal();
        if (is_executable_file(beside)) return beside;
        looked.push_back(beside.string());
    }
    // The build tree keeps the two programs in their own folders (src/driver, analysis).
    if (build_tree && shakedown.has_parent_path() && is_inside(shakedown, build_tree->folder)) {
        if (is_executable_file(build_tree->analyzer)) return build_tree->analyzer;
        looked.push_back(build_tree->analyzer.string() + " (the build tree's; not built?)");
    }
    if (const auto found = in_path(analyzer_program, path_env)) return *found;
    looked.push_back("PATH");
    throw InputError(fmt::format("{} not found (looked at {}): the job could not give a verdict; build or install "
                                 "it, or give --analyzer PATH",
                                 analyzer_program, escape_control(fmt::format("{}", fmt::join(looked, ", ")))));
}

std::filesystem::path check_analyzer(const std::filesystem::path& given, std::string_view path_env) {
    if (given.empty()) throw InputError("--analyzer is empty");
    if (!given.has_parent_path()) {
        if (!in_path(given.string(), path_env))
            throw InputError(fmt::format("--analyzer '{}' is not in PATH: give its path", escape_control(given.string())));
        return given;
    }
    if (!is_executable_file(given))
        throw InputError(fmt::format("--analyzer '{}' is not an executable file", escape_control(given.string())));
    return std::filesystem::absolute(given).lexically_normal();
}

}  // namespace shakedown::slurm
