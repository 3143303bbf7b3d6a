#include "kernels/specs.hpp"

namespace shakedown::kernels {

ParamSpec device_parameter() {
    return ParamSpec::choice("device", "auto", {"auto", "host", "gpu"}, "auto (GPU when one is bound), host or gpu");
}

}  // namespace shakedown::kernels
