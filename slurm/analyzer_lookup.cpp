#include "slurm/analyzer_lookup.hpp"

#include "core/errors.hpp"
#include "core/printable_text.hpp"
#include "core/program_paths.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

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

}  // namespace

std::filesystem::path find_analyzer(const std::filesystem::path& shakedown, std::string_view path_env) {
    // A bare name (--shakedown shakedown) is looked up in PATH on the node: nothing is beside it here.
    const auto self = shakedown.has_parent_path() ? std::filesystem::absolute(shakedown).lexically_normal()
                                                  : std::filesystem::path();
    if (const auto found = find_companion_program(analyzer_program, self, path_env))
        return std::filesystem::absolute(*found).lexically_normal();
    std::vector<std::string> looked;
    if (!self.empty()) looked.push_back((self.parent_path() / analyzer_program).string());
    if (!self.empty() && self.filename() == "shakedown") looked.push_back("its build tree");
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
