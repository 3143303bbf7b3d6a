#include "kernels/common/kernel_backend.hpp"

namespace shakedown::kernels {

ParamSpec backend_parameter() {
    return ParamSpec::choice("backend", "auto", {"auto", "kokkos", "native"},
                             "auto (native CUDA on a GPU, Kokkos on the host), kokkos (Kokkos on the rank's device) or native");
}

}  // namespace shakedown::kernels
