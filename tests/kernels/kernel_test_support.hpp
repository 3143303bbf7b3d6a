// Shared by the kernels' MPI tests: the process-wide runtimes (Kokkos) that the driver
// would start, started once for the test binary, and small result accessors.
#pragma once

#include "core/registry.hpp"
#include "core/result.hpp"
#include "support/result_lookup.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::testing {

inline int world_rank() {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

inline int world_size() {
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

}  // namespace shakedown::testing
