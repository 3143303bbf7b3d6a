// main() for GoogleTest executables run under mpirun: MPI is started once for all tests,
// then every registered runtime (Kokkos, ...) as the driver does, only rank 0 prints, and the
// exit code is agreed across ranks so one failing rank fails all.
#include "core/registry.hpp"

#include <gtest/gtest.h>
#include <mpi.h>


int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);  // as the driver
    ::testing::InitGoogleTest(&argc, argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) {
        auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
        delete listeners.Release(listeners.default_result_printer());
    }
    int local_failed = 0;
    {
        const shakedown::RegisteredRuntimes runtimes;  // stopped in reverse order, before MPI
        local_failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
    }
    int any_failed = 0;
    MPI_Allreduce(&local_failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any_failed;
}
