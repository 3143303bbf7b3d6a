// Built without CUDA: no device to drive.
#include "health/topology/pcie_traffic.hpp"

#include <stdexcept>

namespace shakedown::health {

bool pcie_traffic_built() { return false; }

void with_pcie_traffic(int /*device*/, const std::function<void()>& /*while_busy*/) {
    throw std::runtime_error("built without CUDA: no PCIe traffic can be driven");
}

}  // namespace shakedown::health
