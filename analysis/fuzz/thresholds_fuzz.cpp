// libFuzzer target: any text as a thresholds file (and as a topology.conf). Parsing must give
// rules or throw InputError "file:line: problem"; then every rule lookup must work.
#include "analysis/rules/settings/thresholds.hpp"
#include "analysis/rules/settings/topology.hpp"
#include "core/errors.hpp"
#include "kernels/dgemm/dgemm_fp64_names.hpp"
#include "kernels/ladder/gemm_ladder_names.hpp"
#include "kernels/stream/stream_names.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const auto thresholds = shakedown::analysis::Thresholds::built_in().overridden_by(
            shakedown::analysis::Thresholds::parse(text, "fuzz.yaml"));
        using namespace shakedown::kernels;
        for (const std::string_view name :
             {stream_names::triad_gbs, dgemm_names::tflops, gemm_ladder_names::bf16_tflops, std::string_view("x")})
            (void)thresholds.rule_for(name);
        (void)thresholds.settings().node_hour_price();
    } catch (const shakedown::InputError&) {
    }
    try {
        (void)shakedown::analysis::Topology::parse(text, "fuzz.conf");
    } catch (const shakedown::InputError&) {
    }
    return 0;
}
