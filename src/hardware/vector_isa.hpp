// The FP64 vector instruction sets a host DGEMM can run at, what a CPU's flags offer, and what
// the kernel family a BLAS picked uses. One home for the mapping: the DGEMM test measures its
// reference peak at the BLAS kernel's width, and the analyzer says whether a narrower kernel is
// the library's own choice for this core or a misdetection to fix.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace shakedown::hardware {

// Ordered: a later one is wider.
enum class VectorIsa { sse2, avx, avx2_fma, avx512_fma };

std::string_view to_string(VectorIsa isa);  // "SSE2", "AVX", "AVX2+FMA", "AVX-512+FMA"

// The widest the flags (/proc/cpuinfo's names, as the inventory records them) offer; nothing
// when the flags are missing or offer none of these.
std::optional<VectorIsa> widest_in_flags(const nlohmann::json& flags);

// The width an OpenBLAS kernel family (openblas_get_corename(), any case) computes at; nothing
// for a name this table does not know (no judgment then).
std::optional<VectorIsa> isa_of_openblas_core(std::string_view core);

// How the BLAS kernel family fits the CPU it runs on.
enum class BlasKernelFit {
    full_width,  // the kernel uses the widest vectors the CPU offers
    // AVX2+FMA kernels on an AVX-512 CPU: what this library version or build has for the core, or
    // what the site chose with OPENBLAS_CORETYPE (a library that misdetects a new core falls back
    // to SSE kernels; Haswell's is the usual fix). FMA at half the width: judged at that width.
    narrower_by_choice,
    misdetected,  // narrower than AVX2+FMA on a CPU that has it: the library did not recognize the core
    forced,       // OPENBLAS_CORETYPE forces kernels narrower than AVX2+FMA on a CPU that has it
    unknown,      // not OpenBLAS, or a core or CPU this table cannot place
};

struct BlasKernelJudgement {
    BlasKernelFit fit = BlasKernelFit::unknown;
    std::optional<VectorIsa> kernel;  // the kernel family's width
    std::optional<VectorIsa> cpu;     // the widest the CPU offers
    std::string text;                 // one line naming core, widths and what to do ("" for full_width/unknown)
};

// `core`: OpenBLAS's kernel family ("" when not OpenBLAS); `forced_core`: OPENBLAS_CORETYPE as the
// process saw it ("" when unset); `cpu_model` for the text.
BlasKernelJudgement judge_blas_kernel(std::string_view core, std::string_view forced_core, const nlohmann::json& cpu_flags,
                                      std::string_view cpu_model);

}  // namespace shakedown::hardware
