// Kokkos must be initialised once per process, after MPI_Init and before any test that uses
// it, and finalised before MPI_Finalize: the driver owns that lifetime through the registry's
// runtime guards. With the CUDA backend Kokkos is bound to the GPU the session binds this rank
// to (Session: local rank modulo visible GPUs), so Kokkos and the native CUDA kernels of a rank
// use one device; without a visible GPU a CUDA Kokkos cannot initialise, and Kokkos stays off
// in this process (not_running() says why; the Kokkos kernels waive themselves).
#include "kokkos/kokkos_runtime.hpp"

#include "core/registry.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

#include <memory>

namespace shakedown::kokkos {
namespace {

std::optional<std::string> g_not_running;
std::optional<int> g_device;

int node_local_rank() {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) return 0;
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int rank = 0;
    MPI_Comm_rank(node, &rank);
    MPI_Comm_free(&node);
    return rank;
}

class KokkosRuntime final : public RuntimeGuard {
public:
    KokkosRuntime() {
        if (Kokkos::is_initialized()) return;  // someone else owns it
#if defined(KOKKOS_ENABLE_CUDA)
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess || count <= 0) {
            cudaGetLastError();  // clear the sticky "no device" error for the native code
            g_not_running = "Kokkos has the CUDA backend and this node has no CUDA device (Kokkos cannot start)";
            return;
        }
        g_device = node_local_rank() % count;
        Kokkos::initialize(Kokkos::InitializationSettings().set_device_id(*g_device));
#else
        Kokkos::initialize();  // Serial (Debian's Kokkos 3.4 has no InitializationSettings)
#endif
        owner_ = true;
    }
    ~KokkosRuntime() override {
        if (owner_ && Kokkos::is_initialized()) Kokkos::finalize();
    }
    KokkosRuntime(const KokkosRuntime&) = delete;
    KokkosRuntime& operator=(const KokkosRuntime&) = delete;

private:
    bool owner_ = false;
};

std::unique_ptr<RuntimeGuard> start_kokkos() { return std::make_unique<KokkosRuntime>(); }

SHAKEDOWN_REGISTER_RUNTIME(start_kokkos);

}  // namespace

bool built() { return true; }

bool device_backend() {
#if defined(KOKKOS_ENABLE_CUDA)
    return true;
#else
    return false;
#endif
}

std::string devices() {
    std::string names;
    const auto add = [&](const char* name) { names += names.empty() ? name : std::string(",") + name; };
#if defined(KOKKOS_ENABLE_CUDA)
    add("Cuda");
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    add("OpenMP");
#endif
#if defined(KOKKOS_ENABLE_THREADS)
    add("Threads");
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
    add("Serial");
#endif
    return names;
}

std::optional<std::string> not_running() { return g_not_running; }

std::optional<int> device_id() { return g_device; }

}  // namespace shakedown::kokkos
