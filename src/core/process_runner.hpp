// Runs a program with an argv array (posix_spawnp, no shell) in a process group of its own, with a
// time limit, and collects what it printed. Every program shakedown starts goes through here: the
// Slurm commands (sbatch, sinfo, scontrol), so no node name, partition or reason is ever
// interpreted by a shell, and the browser that prints the report to PDF, which forks helpers that
// must not outlive it.
#pragma once

#include <string>
#include <vector>

namespace shakedown {

struct ProcessResult {
    int exit_code = -1;      // the program's exit status, 128 + signal when killed, 127 not found
    std::string out;         // standard output
    std::string err;         // standard error
    bool timed_out = false;  // killed after the time limit
    bool started = true;     // false: the program could not be started (exit code 127, the reason in err)
};

// Whether standard error reaches `err` or joins standard output in `out`, in the order written (a
// log as a terminal shows it).
enum class OutputStreams { separate, merged };

// Runs argv[0] (looked up in PATH when it has no '/') with argv; standard input is /dev/null. The
// program leads a process group of its own: past `timeout_s` the whole group is killed, and once
// the program has exited so is whatever it left in its group (a helper holding the output pipes
// open). Throws InputError when argv is empty. A program that cannot be started gives exit code
// 127 and the reason in `err`.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s = 120.0,
                          OutputStreams streams = OutputStreams::separate);

// The first line of a program's output, without a trailing CR or spaces: what a message quotes.
std::string first_line(const std::string& text);

// "sbatch --parsable job.sbatch" for messages: each argument shell-quoted when needed.
std::string describe_command(const std::vector<std::string>& argv);

}  // namespace shakedown
