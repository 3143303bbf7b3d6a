// Small helpers for the communication family's MPI tests.
#pragma once

#include "core/result.hpp"

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

inline std::optional<double> metric(const TestResult& result, const std::string& name) {
    for (const auto& m : result.metrics)
        if (m.name == name) return m.value;
    return std::nullopt;
}

}  // namespace shakedown::testing
