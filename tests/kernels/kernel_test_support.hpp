// Shared by the kernels' MPI tests: the process-wide runtimes (Kokkos) that the driver
// would start, started once for the test binary, and small result accessors.
#pragma once

#include "core/registry.hpp"
#include "core/result.hpp"
#include "core/errors.hpp"
#include "support/result_lookup.hpp"
#include "support/run_test.hpp"

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

// Runs `key` with `yaml` and expects it refused before any work (the driver's exit 2): an
// InputError whose text contains `message`.
inline void expect_refused(const std::string& key, const std::string& yaml, const std::string& message) {
    try {
        run_registered_test(key, yaml);
        ADD_FAILURE() << yaml << " was accepted";
    } catch (const InputError& error) {
        EXPECT_NE(std::string(error.what()).find(message), std::string::npos) << error.what() << "\nwanted: " << message;
    }
}

}  // namespace shakedown::testing
