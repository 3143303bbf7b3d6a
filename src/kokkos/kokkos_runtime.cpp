// Kokkos must be initialised once per process, after MPI_Init and before any test that uses
// it, and finalised before MPI_Finalize: the driver owns that lifetime through the registry's
// runtime guards. ScopeGuard leaves an already initialised Kokkos alone.
#include "kokkos/kokkos_runtime.hpp"

#include "core/registry.hpp"

#include <Kokkos_Core.hpp>

#include <memory>

namespace shakedown::kokkos {
namespace {

class KokkosRuntime final : public RuntimeGuard {
    // Default settings: the Serial backend here; with a threaded or device backend the
    // usual KOKKOS_* environment variables (or a site's defaults) decide placement.
    Kokkos::ScopeGuard guard_{};
};

std::unique_ptr<RuntimeGuard> start_kokkos() { return std::make_unique<KokkosRuntime>(); }

SHAKEDOWN_REGISTER_RUNTIME(start_kokkos);

}  // namespace

bool built() { return true; }

}  // namespace shakedown::kokkos
