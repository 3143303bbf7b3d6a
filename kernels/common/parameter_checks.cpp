#include "kernels/common/parameter_checks.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

namespace shakedown::kernels {

void check_device_name(std::string_view test, const std::string& requested) {
    if (requested == "auto" || requested == "host" || requested == "gpu") return;
    throw InputError(fmt::format("{}: unknown device '{}' (known: auto, host, gpu)", test, requested));
}

std::int64_t zero_or_positive(const TestParams& params, std::string_view test, const std::string& name,
                              std::string_view zero_means) {
    const std::int64_t value = params.integer(name);
    if (value < 0) throw InputError(fmt::format("{}: {} must be positive (0 = {}), not {}", test, name, zero_means, value));
    return value;
}

}  // namespace shakedown::kernels
