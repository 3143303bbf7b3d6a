// RAII for MPI itself: initialised with MPI_THREAD_MULTIPLE (the watchdog thread may call
// MPI_Abort while the main thread is inside MPI), finalised on scope exit.
#pragma once

#include <mpi.h>

#include <stdexcept>

namespace shakedown {

class MpiRuntime {
public:
    MpiRuntime(int& argc, char**& argv) {
        int provided = 0;
        if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
            throw std::runtime_error("MPI_Init_thread failed");
        thread_multiple_ = provided >= MPI_THREAD_MULTIPLE;
    }
    ~MpiRuntime() {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized) MPI_Finalize();
    }
    MpiRuntime(const MpiRuntime&) = delete;
    MpiRuntime& operator=(const MpiRuntime&) = delete;

    bool thread_multiple() const { return thread_multiple_; }

private:
    bool thread_multiple_ = false;
};

// The rank the launcher gave this process, read before MPI starts (mpirun, srun, PMI), so
// that start-up errors are printed once rather than once per rank. 0 when not launched.
int launcher_rank();

}  // namespace shakedown
