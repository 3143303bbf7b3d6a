#include "process.hpp"

#include "core/clock.hpp"

#include <fmt/format.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <memory>

namespace shakedown::testing {

std::string shell_quote(const std::string& word) {
    std::string quoted = "'";
    for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s) {
    std::string command = fmt::format("timeout --kill-after=5 {} ", timeout_s);
    for (const auto& word : argv) command += shell_quote(word) + " ";
    command += "2>&1";

    ProcessResult result;
    const Stopwatch clock;
    std::FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) return result;
    std::array<char, 4096> buffer{};
    std::size_t got = 0;
    while ((got = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.output.append(buffer.data(), got);
    const int status = ::pclose(pipe);
    result.seconds = clock.seconds();
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
}

std::vector<std::string> mpirun(int ranks, std::vector<std::string> argv) {
    std::vector<std::string> command{SHAKEDOWN_MPIEXEC, "-np", std::to_string(ranks), "--oversubscribe",
                                     "--allow-run-as-root", "--mca", "btl", "self,vader,tcp"};
    command.insert(command.end(), argv.begin(), argv.end());
    return command;
}

}  // namespace shakedown::testing
