// Whether this binary's host kernels run through Kokkos (Serial here, or any backend the
// installed Kokkos has). With Kokkos, kokkos_runtime.cpp registers the runtime guard that the
// driver starts after MPI_Init and stops before MPI_Finalize.
#pragma once

namespace shakedown::kokkos {

bool built();

}  // namespace shakedown::kokkos
