// The Slurm commands shakedown runs, by name or path: the one seam between shakedown and the
// scheduler. Tests point these at fakes in a temporary folder (tests/slurm/fake_slurm.hpp).
#pragma once

#include <string>

namespace shakedown::slurm {

struct SlurmTools {
    std::string sbatch = "sbatch";
    std::string sinfo = "sinfo";
    std::string squeue = "squeue";      // a job's state while it is known to the controller
    std::string scontrol = "scontrol";  // a finished job's exit code without accounting
    std::string sacct = "sacct";        // the same from accounting, after the controller forgot it
};

}  // namespace shakedown::slurm
