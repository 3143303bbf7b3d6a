// How large a host kernel's bandwidth bound is measured. The bound (a short STREAM triad on the same
// cores, every rank at once) is sized to the kernel's own working set: fields that live in a cache
// run at that cache's rate, which a triad over DRAM-sized arrays does not bound (a host stencil and
// CG at the quick sizes read 1.07-1.15 of a 64 MiB triad on a CPU whose caches held their fields,
// and were called not credible). Sized alike, both meet the same level of the memory hierarchy on
// any CPU, so the fraction is the kernel's own efficiency there. A GPU kernel's fields exceed its L2
// many times over (stencil3d: 30 x, cg_fp64: 16 x on an H200), so its bound stays DRAM-sized.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace shakedown::kernels {

// MiB per array of a triad whose three arrays hold `working_set_bytes`: at least 1.
inline std::int64_t host_triad_mib_holding(double working_set_bytes) {
    constexpr double mib = 1024.0 * 1024.0;
    return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(working_set_bytes / 3.0 / mib)));
}

}  // namespace shakedown::kernels
