// Keeps a GPU's PCIe link busy for the length of a call, so that the link state read during
// it is the trained state under load (an idle GPU drops its link generation to save power).
#pragma once

#include <functional>

namespace shakedown::health {

// True when built with CUDA (CMake picks pcie_traffic_cuda.cpp or pcie_traffic_none.cpp).
bool pcie_traffic_built();

// Runs `while_busy` while host-to-device copies stream to CUDA device `device` (after a short
// ramp so the link has retrained). Throws std::runtime_error without CUDA.
void with_pcie_traffic(int device, const std::function<void()>& while_busy);

}  // namespace shakedown::health
