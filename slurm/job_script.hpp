// `shakedown slurm generate`: a batch job script for one suite from validated options. The
// script runs `shakedown run` under srun (--mpi=pmix) or mpirun across the allocation and ends
// with shakedown-analyze on the run folder; its exit code is the analyzer's. The run step is
// stopped analysis_reserve_s before the job's time limit, so the analysis always gets to judge
// what was written, also after a failed step, a dead node or a run that overran.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::slurm {

enum class Launcher { srun, mpirun };

// What the user asked for, before validation.
struct JobOptions {
    std::optional<int> nodes;               // node count
    std::optional<std::string> nodelist;    // or a hostlist expression (both: they must agree)
    std::string partition;                  // empty: the site's default partition
    std::optional<std::string> time_limit;  // minutes or [D-]HH:MM:SS; none: the suite's default
    std::optional<long> analysis_reserve_s; // kept at the job's end for the analysis; none: default
    int gpus_per_node = 0;
    std::optional<int> ranks_per_node;      // none: one per GPU, or 1 without GPUs
    std::string suite = "quick";
    std::filesystem::path out_parent = "shakedown-runs";  // run folders are made under it
    Launcher launcher = Launcher::srun;
    std::vector<std::string> launcher_args;  // added to srun/mpirun, e.g. {"--mca", "btl", "self,tcp"}
    std::vector<std::string> run_args;       // added to `shakedown run`, e.g. {"--config", "/abs/x.yaml"}
    std::vector<std::string> analyzer_args;  // added to shakedown-analyze, e.g. {"--thresholds", "/abs/t.yaml"}
    std::filesystem::path shakedown_binary = "shakedown";
    std::filesystem::path analyzer_binary = "shakedown-analyze";
    // Where the job is charged and placed (#SBATCH lines; empty / none: not written).
    std::string account;                   // -A/--account
    std::string qos;                       // -q/--qos
    std::string reservation;               // --reservation
    std::string constraint;                // -C/--constraint: node features, e.g. "a100&ib"
    std::optional<std::string> exclude;    // -x/--exclude: a hostlist
    bool exclusive = true;                 // --exclusive (measurements on shared nodes mean nothing)
    std::vector<std::string> sbatch_args;  // --sbatch-args: further sbatch options, split at spaces
    // Seconds before the time limit at which Slurm signals the script (B:USR1) to stop the run
    // step and analyse; none: the analysis reserve; 0: no signal asked for.
    std::optional<long> signal_s;
};

// The validated job: every field checked, paths absolute (binaries given without a folder are
// looked up in PATH on the node at run time).
struct JobSpec {
    std::string suite;
    int nodes = 1;
    std::optional<std::string> nodelist;  // compressed hostlist
    std::string partition;
    long time_limit_s = 0;
    long analysis_reserve_s = 0;  // the run step ends this long before time_limit_s
    int gpus_per_node = 0;
    int ranks_per_node = 1;
    std::filesystem::path out_parent;
    Launcher launcher = Launcher::srun;
    std::vector<std::string> launcher_args;
    std::vector<std::string> run_args;
    std::vector<std::string> analyzer_args;
    std::filesystem::path shakedown_binary;
    std::filesystem::path analyzer_binary;
    std::string account;
    std::string qos;
    std::string reservation;
    std::string constraint;
    std::optional<std::string> exclude;  // compressed hostlist
    bool exclusive = true;
    // --sbatch-args as #SBATCH lines' text: one option with its value each ("--mem=0", "--gres gpu:2").
    std::vector<std::string> sbatch_extra;
    long signal_s = 0;  // 0: no --signal line
};

// Slurm's own limit for the seconds of --signal=SIG@SECONDS.
inline constexpr long max_signal_s = 65'535;

// quick, full, burnin, pairwise: the suites with a template.
std::vector<std::string> job_suites();

// "90" (minutes), "01:30:00", "2-00:00:00" -> seconds. Throws InputError for anything else,
// negative or zero.
long parse_time_limit(std::string_view text);
// Seconds -> Slurm's "[D-]HH:MM:SS".
std::string format_time_limit(long seconds);

// The time kept at the end of a job for slurm_nodes.txt and the analysis when --analysis-reserve
// is not given: a tenth of the limit, at least 60 s and at most 10 minutes, never more than half.
long default_analysis_reserve_s(long time_limit_s);
// How long the run step gets between SIGTERM (its limit reached) and SIGKILL: a quarter of the
// reserve, 1..30 s, so the ranks can close their traces and the analysis still has the rest.
long run_step_kill_after_s(long analysis_reserve_s);

Launcher parse_launcher(std::string_view name);  // "srun" | "mpirun", else InputError
std::string_view launcher_name(Launcher launcher);

// Throws InputError with one line naming the option and what is wrong.
JobSpec validate_job_options(const JobOptions& options);

// The job script text for a validated job.
std::string render_job_script(const JobSpec& job);

// The argv of the launcher inside the job: {"srun", "--mpi=pmix", "--kill-on-bad-exit=1", ...}.
std::vector<std::string> launcher_command(const JobSpec& job);

// A word quoted for bash so that it stays one literal word ('...' with ' escaped).
std::string shell_quote(std::string_view word);

}  // namespace shakedown::slurm
