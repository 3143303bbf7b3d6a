// Agreeing, across ranks, on how one test went: the worst status and one rank's reason.
#pragma once

#include "driver/progress.hpp"

#include <mpi.h>

namespace shakedown {

// Collective over `world`.
TestOutcome gather_outcome(const TestResult& mine, MPI_Comm world);

}  // namespace shakedown
