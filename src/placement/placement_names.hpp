// The names of where a test ran, declared once and header-only (the tests' declarations and the
// analyzer read them without the placement code): a test that may run on the host or on its
// rank's GPU declares the `device` parameter (auto, host or gpu) and records under the same key
// where it ran ("host" or "gpu"). The analyzer files a result recorded as host under the host,
// never under the rank's GPU (analysis/load/observations.hpp, ran_on).
#pragma once

#include "core/params.hpp"

namespace shakedown::placement::names {

inline constexpr const char* device = "device";
inline constexpr const char* ran_on_host = "host";
inline constexpr const char* ran_on_gpu = "gpu";

inline ParamSpec device_parameter() {
    return ParamSpec::choice(device, "auto", {"auto", ran_on_host, ran_on_gpu}, "auto (GPU when one is bound), host or gpu");
}

}  // namespace shakedown::placement::names
