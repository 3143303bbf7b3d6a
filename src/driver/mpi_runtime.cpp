#include "driver/mpi_runtime.hpp"

#include <cstdlib>
#include <string>

namespace shakedown {

int launcher_rank() {
    for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
        if (const char* value = std::getenv(name); value != nullptr && *value != '\0') {
            try {
                return std::stoi(value);
            } catch (const std::exception&) {
                return 0;
            }
        }
    }
    return 0;
}

}  // namespace shakedown
