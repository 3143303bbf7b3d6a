// Built when Kokkos is not: the host kernels that need it waive themselves with the reason,
// and `backend: kokkos` is waived everywhere.
#include "kokkos/kokkos_runtime.hpp"

namespace shakedown::kokkos {

bool built() { return false; }
bool device_backend() { return false; }
std::string devices() { return {}; }
std::optional<std::string> not_running() { return std::nullopt; }
std::optional<int> device_id() { return std::nullopt; }

}  // namespace shakedown::kokkos
