// `backend: auto|kokkos|native` of stream, stencil3d and dgemm_fp64: what runs the kernel on
// the rank's device. native is the hand-written CUDA (cuBLAS for DGEMM) on a GPU; kokkos is
// the Kokkos code, on the host in Kokkos' host execution space and on a GPU in its device
// space (a Kokkos with the CUDA backend); auto is native on a GPU and Kokkos on the host.
// A backend this build or this Kokkos cannot run on the rank's device waives the test with
// the reason, as `device: gpu` on a rank without a GPU does.
#pragma once

#include "core/params.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace shakedown::kernels {

enum class KernelBackend { native, kokkos };

// The declared parameter (the same for the three kernels): an unknown value is refused
// before any work.
ParamSpec backend_parameter();

// What this binary's Kokkos can do (kokkos_runtime.hpp), as plain facts for choose_backend.
struct KokkosFacts {
    bool built = false;           // Kokkos at all
    bool device_backend = false;  // with a device execution space (CUDA)
    std::string devices;          // "Cuda,Serial"
    std::optional<std::string> not_running;  // built but not initialised in this process, and why
};
KokkosFacts this_kokkos();

struct BackendChoice {
    KernelBackend backend = KernelBackend::native;
    std::optional<std::string> waiver;  // set: the test does not run on this rank, and why
};

// `requested`: the parameter's value; `on_gpu`: the rank runs the test on its GPU;
// `host_native`: a non-Kokkos host implementation is built (stream's plain loops without
// Kokkos); `host_without_kokkos`: the waiver when the host needs Kokkos and it is not built.
// Throws InputError for an unknown value.
BackendChoice choose_backend(std::string_view requested, bool on_gpu, const KokkosFacts& kokkos, bool host_native,
                             const std::string& host_without_kokkos);

std::string_view to_string(KernelBackend backend);

}  // namespace shakedown::kernels
