#include "driver/expected_duration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace shakedown {
namespace {

// The tests whose length a parameter sets. Every other test's length depends on the hardware
// (sizes chosen to last a target time, link counts, the fabric), and no estimate measured on a
// known machine is declared yet: they show "unknown" rather than an invented figure. A row's
// test and parameter are checked against the registry by the unit tests.
constexpr std::array declarations{
    DurationDeclaration{.test = "burnin", .parameter = "duration_s"},
    DurationDeclaration{.test = "gpu_memtest", .parameter = "duration_s"},
};

}  // namespace

std::span<const DurationDeclaration> duration_declarations() { return declarations; }

ExpectedDuration expected_duration(std::string_view test, const TestParams& params,
                                   std::span<const DurationDeclaration> table) {
    const auto row = std::find_if(table.begin(), table.end(), [test](const auto& entry) { return entry.test == test; });
    if (row == table.end()) return {std::nullopt, "unknown"};
    if (row->parameter.empty()) return {row->estimate_s, fmt::format("estimate: {}", row->basis)};
    const std::string name(row->parameter);
    if (const auto seconds = params.optional_real(name)) return {*seconds, fmt::format("parameter {}", name)};
    return {std::nullopt, "unknown"};  // the parameter left to `auto`
}

}  // namespace shakedown
