// Checks of the kernel tests' shared parameters that need nothing but the values, so each
// test's check_parameters() runs them before any rank starts work or a run folder exists
// (an InputError there is the driver's exit 2). Checks that need the node (memory, GPU)
// stay in run().
#pragma once

#include "core/params.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace shakedown::kernels {

// `device` must be auto, host or gpu: "<test>: unknown device 'fpga' (known: auto, host, gpu)".
void check_device_name(std::string_view test, const std::string& requested);

// An integer parameter where 0 asks for the automatic value: negative is an input error
// ("<test>: <name> must be positive (0 = <zero_means>), not -3"). Returns the value.
std::int64_t zero_or_positive(const TestParams& params, std::string_view test, const std::string& name,
                              std::string_view zero_means = "automatic");

}  // namespace shakedown::kernels
