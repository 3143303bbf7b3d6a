#include "hardware/vector_isa.hpp"

#include "core/printable_text.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <set>
#include <utility>

namespace shakedown::hardware {
namespace {

// What the named core's kernels would use instead: the family OPENBLAS_CORETYPE should name.
std::string_view core_for(VectorIsa isa) {
    switch (isa) {
    case VectorIsa::avx512_fma: return "SkylakeX";
    case VectorIsa::avx2_fma: return "Haswell";
    case VectorIsa::avx: return "Sandybridge";
    case VectorIsa::sse2: return "Prescott";
    }
    return "";
}

}  // namespace

std::string_view to_string(VectorIsa isa) {
    switch (isa) {
    case VectorIsa::sse2: return "SSE2";
    case VectorIsa::avx: return "AVX";
    case VectorIsa::avx2_fma: return "AVX2+FMA";
    case VectorIsa::avx512_fma: return "AVX-512+FMA";
    }
    return "unknown";
}

std::optional<VectorIsa> widest_in_flags(const nlohmann::json& flags) {
    if (!flags.is_array()) return std::nullopt;
    std::set<std::string, std::less<>> present;
    for (const auto& flag : flags)
        if (flag.is_string()) present.insert(flag.get<std::string>());
    const bool fma = present.count("fma") > 0;
    if (present.count("avx512f") && fma) return VectorIsa::avx512_fma;
    if (present.count("avx2") && fma) return VectorIsa::avx2_fma;
    if (present.count("avx")) return VectorIsa::avx;
    if (present.count("sse2")) return VectorIsa::sse2;
    return std::nullopt;
}

std::optional<VectorIsa> isa_of_openblas_core(std::string_view core) {
    // OpenBLAS's x86-64 kernel families (its TARGET names) by the widest FP64 vectors their DGEMM uses.
    static const std::array<std::pair<std::string_view, VectorIsa>, 24> families{{
        {"prescott", VectorIsa::sse2},      {"core2", VectorIsa::sse2},        {"penryn", VectorIsa::sse2},
        {"dunnington", VectorIsa::sse2},    {"nehalem", VectorIsa::sse2},      {"atom", VectorIsa::sse2},
        {"opteron", VectorIsa::sse2},       {"barcelona", VectorIsa::sse2},    {"bobcat", VectorIsa::sse2},
        {"katmai", VectorIsa::sse2},        {"northwood", VectorIsa::sse2},    {"generic", VectorIsa::sse2},
        {"sandybridge", VectorIsa::avx},    {"bulldozer", VectorIsa::avx},     {"piledriver", VectorIsa::avx},
        {"steamroller", VectorIsa::avx},    {"excavator", VectorIsa::avx2_fma}, {"haswell", VectorIsa::avx2_fma},
        {"zen", VectorIsa::avx2_fma},       {"skylakex", VectorIsa::avx512_fma}, {"cooperlake", VectorIsa::avx512_fma},
        {"sapphirerapids", VectorIsa::avx512_fma}, {"atomc3000", VectorIsa::sse2}, {"nano", VectorIsa::sse2},
    }};
    const std::string name = ascii_lower(core);
    for (const auto& [family, isa] : families)
        if (name == family) return isa;
    return std::nullopt;
}

BlasKernelJudgement judge_blas_kernel(std::string_view core, std::string_view forced_core, const nlohmann::json& cpu_flags,
                                      std::string_view cpu_model) {
    BlasKernelJudgement judgement;
    judgement.kernel = isa_of_openblas_core(core);
    judgement.cpu = widest_in_flags(cpu_flags);
    if (!judgement.kernel || !judgement.cpu) return judgement;
    if (*judgement.kernel >= *judgement.cpu) {
        judgement.fit = BlasKernelFit::full_width;
        return judgement;
    }
    const std::string model = cpu_model.empty() ? std::string("this CPU") : std::string(cpu_model);
    const std::string widths = fmt::format("OpenBLAS runs its {} kernels ({}) on {}, which has {}", core,
                                           to_string(*judgement.kernel), model, to_string(*judgement.cpu));
    if (*judgement.kernel >= VectorIsa::avx2_fma) {
        judgement.fit = BlasKernelFit::narrower_by_choice;
        judgement.text = fmt::format("{}: {}; DGEMM is judged against the cores' {} peak (a {} kernel may be faster)",
                                     widths,
                                     forced_core.empty() ? std::string("this OpenBLAS has no wider kernel for the core")
                                                         : fmt::format("OPENBLAS_CORETYPE={} chose them", forced_core),
                                     to_string(*judgement.kernel), core_for(*judgement.cpu));
    } else if (!forced_core.empty()) {
        judgement.fit = BlasKernelFit::forced;
        judgement.text = fmt::format("{}: OPENBLAS_CORETYPE={} forces them; name a {} core there (or unset it)",
                                     widths, forced_core, core_for(*judgement.cpu));
    } else {
        judgement.fit = BlasKernelFit::misdetected;
        judgement.text = fmt::format("{}: OpenBLAS did not recognize the core; set OPENBLAS_CORETYPE={} for the job "
                                     "(or use a BLAS that knows this CPU)",
                                     widths, core_for(*judgement.cpu));
    }
    return judgement;
}

}  // namespace shakedown::hardware
