// `shakedown slurm submit --wait`: waits for a submitted job by looking at it with squeue, then
// takes its exit code from scontrol (or sacct), never longer than an overall timeout. A job that
// Slurm ended itself (cancelled, out of time, a failed node) or that could not be followed to its
// end gives no verdict: no_verdict_exit_code and one line saying what was last seen.
#pragma once

#include "slurm/slurm_tools.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace shakedown::slurm {

// `submit --wait` gave up or Slurm ended the job before its script did: there is no verdict.
// Distinct from the verdict codes (0 pass, 1 failures, 2 bad input, 3 incomplete run).
inline constexpr int no_verdict_exit_code = 4;

// What one look at a job showed.
struct JobSighting {
    bool known = false;            // some command could still say something about the job
    std::string state;             // "PENDING", "RUNNING", "COMPLETED", "NODE_FAIL", ...
    std::string reason;            // "None", "Resources", "NodeDown", ...; may be empty
    std::string nodes;             // the job's node list; empty while pending
    std::optional<int> exit_code;  // the batch script's exit code, once the job has ended
    std::optional<int> signal;     // the signal that ended the batch script, if one did
    std::string source;            // the command that said it: "squeue", "scontrol", "sacct"

    // "RUNNING (reason None) on node[1-3], from squeue"
    std::string describe() const;
};

// squeue -h -t all -j ID -o '%T|%r|%N'. Not known: squeue no longer lists the job. Throws
// nothing; a failing squeue (controller unreachable) gives known = false and `error` set.
JobSighting look_with_squeue(const std::string& job_id, const SlurmTools& tools, double timeout_s,
                             std::string* error = nullptr);

// How the job ended: `scontrol show job -o ID` (the controller keeps a finished job MinJobAge
// seconds), else `sacct -n -X -P -j ID -o State,ExitCode,NodeList`. Not known: neither could say.
JobSighting look_at_end(const std::string& job_id, const SlurmTools& tools, double timeout_s);

// A state in which the job will not change again (COMPLETED, FAILED, CANCELLED, TIMEOUT,
// NODE_FAIL, PREEMPTED, BOOT_FAIL, DEADLINE, OUT_OF_MEMORY). COMPLETING is not: the epilog runs.
bool is_final_job_state(std::string_view state);

// The time limit and a margin for start-up, Slurm's KillWait and the epilog: limit + 5 minutes.
// Time spent pending in the queue counts too; a busy queue needs --wait-timeout.
long default_wait_timeout_s(long time_limit_s);

struct WaitOptions {
    double timeout_s = 0;      // overall, from the call
    double first_poll_s = 2;   // the first pause between looks, growing by half up to max_poll_s
    double max_poll_s = 10;
};

struct WaitOutcome {
    enum class End {
        exited,          // the batch script ran to its end: exit_code is its exit code (the verdict)
        ended_by_slurm,  // cancelled, out of time, a failed node, a signal: no verdict
        timed_out,       // still not ended after timeout_s: the job was left as it is
        lost,            // gone from the queue and neither scontrol nor sacct knows how it ended
    };
    End end = End::lost;
    int exit_code = no_verdict_exit_code;
    JobSighting last_seen;
    double waited_s = 0;
    std::string message;  // one line for the user, naming the job and what was last seen
};

WaitOutcome wait_for_job(const std::string& job_id, const SlurmTools& tools, const WaitOptions& options);

}  // namespace shakedown::slurm
