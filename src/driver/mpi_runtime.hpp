// RAII for MPI itself, finalised on scope exit. MPI_THREAD_SINGLE: only the main thread ever
// calls MPI; the watchdog, the termination listener and the telemetry sampler never do. Open MPI
// 4.1 locks every call at any level above SINGLE, FUNNELED included (1-byte ping-pong here:
// 0.35 us at SINGLE, 0.48 at FUNNELED, 0.48 at MULTIPLE), which a benchmark cannot afford.
#pragma once

#include <mpi.h>

#include <stdexcept>

namespace shakedown {

class MpiRuntime {
public:
    MpiRuntime(int& argc, char**& argv) {
        int provided = 0;
        if (MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
            throw std::runtime_error("MPI_Init_thread failed");
    }
    ~MpiRuntime() {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized) MPI_Finalize();
    }
    MpiRuntime(const MpiRuntime&) = delete;
    MpiRuntime& operator=(const MpiRuntime&) = delete;

};

// The rank the launcher gave this process, read before MPI starts (mpirun, srun, PMI), so
// that start-up errors are printed once rather than once per rank. 0 when not launched.
int launcher_rank();

}  // namespace shakedown
