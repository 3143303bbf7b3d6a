#include "process.hpp"

#include "core/clock.hpp"
#include "core/process_runner.hpp"

namespace shakedown::testing {

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s) {
    const Stopwatch clock;
    const auto ran = shakedown::run_process(argv, timeout_s, OutputStreams::merged);
    ProcessResult result;
    result.exit_code = ran.exit_code;
    result.output = ran.out + ran.err;  // err holds only the reason a program could not start
    result.seconds = clock.seconds();
    return result;
}

std::vector<std::string> mpirun(int ranks, std::vector<std::string> argv) {
    std::vector<std::string> command{SHAKEDOWN_MPIEXEC, "-np", std::to_string(ranks), "--oversubscribe",
                                     "--allow-run-as-root", "--mca", "btl", "self,vader,tcp"};
    command.insert(command.end(), argv.begin(), argv.end());
    return command;
}

}  // namespace shakedown::testing
