// Small helpers for the communication family's MPI tests.
#pragma once

#include "core/errors.hpp"

#include <gtest/gtest.h>

#include "core/result.hpp"
#include "support/result_lookup.hpp"

#include <mpi.h>

#include <optional>
#include <string>

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
