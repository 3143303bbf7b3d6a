// Built without CUDA: no device to copy to.
#include "health/h2d/host_device_copy.hpp"

#include <stdexcept>

namespace shakedown::health {

bool host_device_copy_built() { return false; }

CopyFigures measure_host_device_copies(const CopyRequest& /*request*/) {
    throw std::runtime_error("built without CUDA: no host-device copies");
}

}  // namespace shakedown::health
