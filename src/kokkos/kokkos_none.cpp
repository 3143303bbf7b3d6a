// Built when Kokkos is not: the host kernels that need it waive themselves with the reason.
#include "kokkos/kokkos_runtime.hpp"

namespace shakedown::kokkos {

bool built() { return false; }

}  // namespace shakedown::kokkos
