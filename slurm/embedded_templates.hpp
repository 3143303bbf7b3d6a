// The job templates of slurm/templates/, compiled in at build time (embed_templates.cmake).
#pragma once

#include <optional>
#include <string_view>

namespace shakedown::slurm {

// By file name without ".in": "quick.sbatch", "job_body.sh", ...; nullopt when there is none.
std::optional<std::string_view> embedded_template(std::string_view name);

}  // namespace shakedown::slurm
