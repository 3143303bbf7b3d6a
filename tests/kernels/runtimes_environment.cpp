// Starts the registered process-wide runtimes (Kokkos) once for the kernels' MPI tests,
// after MPI_Init and before the first test, as the driver does.
#include "kernel_test_support.hpp"

namespace {
[[maybe_unused]] const auto* const runtimes =
    ::testing::AddGlobalTestEnvironment(new shakedown::testing::RegisteredRuntimes);
}
