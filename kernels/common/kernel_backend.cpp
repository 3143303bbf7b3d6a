#include "kernels/common/kernel_backend.hpp"

#include "kokkos/kokkos_runtime.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

namespace shakedown::kernels {

KokkosFacts this_kokkos() {
    return {kokkos::built(), kokkos::device_backend(), kokkos::devices(), kokkos::not_running()};
}

std::string_view to_string(KernelBackend backend) { return backend == KernelBackend::kokkos ? "kokkos" : "native"; }

BackendChoice choose_backend(std::string_view requested, bool on_gpu, const KokkosFacts& kokkos, bool host_native,
                             const std::string& host_without_kokkos) {
    if (requested != "auto" && requested != "kokkos" && requested != "native")
        throw InputError(fmt::format("unknown backend '{}' (known: auto, kokkos, native)", requested));
    const auto waived = [](std::string why) { return BackendChoice{KernelBackend::kokkos, std::move(why)}; };
    const auto through_kokkos = [&](bool gpu) -> BackendChoice {
        if (!kokkos.built) return waived(gpu ? "backend kokkos: built without Kokkos" : host_without_kokkos);
        if (gpu && !kokkos.device_backend)
            return waived(fmt::format("backend kokkos on a GPU needs a Kokkos with a device backend; this Kokkos has {} (host only)",
                                      kokkos.devices.empty() ? std::string("no device space") : kokkos.devices));
        if (kokkos.not_running) return waived(*kokkos.not_running);
        return {KernelBackend::kokkos, std::nullopt};
    };
    if (on_gpu) {
        if (requested == "kokkos") return through_kokkos(true);
        return {KernelBackend::native, std::nullopt};  // auto and native: the hand-written CUDA
    }
    if (requested == "native") {
        if (host_native && !kokkos.built) return {KernelBackend::native, std::nullopt};
        return {KernelBackend::native,
                std::string("backend native has no host implementation in this build (the host runs through Kokkos: backend auto or kokkos)")};
    }
    // auto and kokkos on the host: Kokkos where built, else the plain host code where there is one.
    if (requested == "auto" && !kokkos.built && host_native) return {KernelBackend::native, std::nullopt};
    return through_kokkos(false);
}

}  // namespace shakedown::kernels
