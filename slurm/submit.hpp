// `shakedown slurm submit`: checks the partition with sinfo, writes the job script and hands it
// to sbatch; with --wait the CLI then follows the job to its end (slurm/job_wait.hpp) within an
// overall timeout. Slurm's commands are executed with argv arrays, never through a shell.
#pragma once

#include "slurm/job_script.hpp"
#include "slurm/slurm_tools.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace shakedown::slurm {

// The partitions Slurm knows (`sinfo -h -o %P`, the default's '*' removed). Throws InputError
// when sinfo cannot be run or fails (no Slurm here, controller down).
std::vector<std::string> list_partitions(const SlurmTools& tools);

// Throws InputError "unknown partition 'x': known are a, b" when Slurm does not know it.
void require_known_partition(const std::string& partition, const SlurmTools& tools);

struct SubmitResult {
    std::string job_id;
    std::filesystem::path script;
    std::filesystem::path run_folder;  // where the job's run will be (a requeued attempt's has a suffix)
};

// Validates the partition (when one is given), writes the script into `script` (default:
// <out>/shakedown-<suite>-<time>.sbatch, or -2, -3, ... before .sbatch when that exists; a given
// `script` that exists is refused: a script is never overwritten) and runs `sbatch --parsable script`, which returns at
// once; wait_for_job (slurm/job_wait.hpp) follows the job. Throws InputError for an unknown
// partition or when sbatch refuses the job (its message).
SubmitResult submit_job(const JobSpec& job, const SlurmTools& tools, std::filesystem::path script = {});

}  // namespace shakedown::slurm
