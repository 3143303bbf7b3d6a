// Runs a program with an argv array (posix_spawnp, no shell) and collects what it printed.
// Every Slurm command shakedown issues (sbatch, sinfo, scontrol) goes through here, so no
// node name, partition or reason is ever interpreted by a shell.
#pragma once

#include <string>
#include <vector>

namespace shakedown::slurm {

struct ProcessResult {
    int exit_code = -1;       // the program's exit status, 128 + signal when killed, 127 not found
    std::string out;          // standard output
    std::string err;          // standard error
    bool timed_out = false;   // killed after the time limit
};

// Runs argv[0] (looked up in PATH when it has no '/') with argv; standard input is /dev/null.
// Throws InputError when argv is empty. A program that cannot be started gives exit code 127
// and the reason in `err`.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s = 120.0);

// "sbatch --parsable job.sbatch" for messages: each argument shell-quoted when needed.
std::string describe_command(const std::vector<std::string>& argv);

}  // namespace shakedown::slurm
