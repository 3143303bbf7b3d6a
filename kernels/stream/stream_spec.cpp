#include "kernels/common/kernel_backend.hpp"
#include "kernels/specs.hpp"
#include "kernels/stream/stream_kernels.hpp"
#include "kernels/stream/stream_names.hpp"
#include "placement/placement_names.hpp"

#include "core/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace shakedown::kernels {
namespace {

constexpr std::int64_t elements_per_mib = 1024 * 1024 / sizeof(double);
constexpr std::int64_t most_elements = std::int64_t{1} << 56;  // 3 arrays of 2^56 doubles: more than any node holds

std::string kernel_names() {
    std::vector<std::string_view> names;
    for (const auto& kernel : stream_kernel_table) names.push_back(kernel.name);
    return fmt::format("{}", fmt::join(names, ","));
}

}  // namespace

const TestSpec& stream_spec() {
    static const TestSpec spec{
        .key = std::string(stream_names::key),
        .description =
            "STREAM copy/scale/add/triad/dot memory bandwidth (host via Kokkos, GPU via CUDA or Kokkos), gold-validated",
        .suites = {"quick", "full"},
        .parameters =
            {
                placement::names::device_parameter(),
                backend_parameter(),
                ParamSpec::integer("array_mib", automatic, "MiB per array (3 arrays)")
                    .allow_auto("64 on the host, 4096 on a GPU")
                    .between(1, most_elements / elements_per_mib),
                ParamSpec::integer("array_elements", automatic,
                                   "exact elements per array, odd lengths allowed (overrides array_mib)")
                    .allow_auto("from array_mib")
                    .between(1, most_elements),
                ParamSpec::integer("repetitions", 20, "repetitions of the 5 kernels").at_least(1).in_suite("quick", 10),
                ParamSpec::real("nominal_gbs", automatic, "host memory bandwidth per node in GB/s")
                    .allow_auto("unknown: no fraction of nominal")
                    .above(0),
            },
        .metrics =
            {
                {fmt::format("stream.{{{}}}_gbs", kernel_names()), "GB/s", Better::higher, "median rate of the repetitions"},
                {fmt::format("stream.{{{}}}_max_gbs", kernel_names()), "GB/s", Better::higher, "best repetition"},
            },
        .samples = {{"kernel", "id"}, {"repetition", "count"}, {"seconds", "s"}, {"gbs", "GB/s"}},
        .headline = {{.metric = std::string(stream_names::triad_gbs), .place = 1}},
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(stream_spec);

}  // namespace shakedown::kernels
