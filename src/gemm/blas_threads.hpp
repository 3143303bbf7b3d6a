// OpenBLAS starts as many threads as the node has cores in every process; with one MPI
// rank per core that oversubscribes the node many times over. For the length of a host
// DGEMM this gives each rank its share of the cores, and restores the setting afterwards.
// Found at run time (dlsym), so a build against another BLAS simply skips it.
#pragma once

#include <optional>
#include <string>

namespace shakedown::gemm {

class BlasThreadShare {
public:
    explicit BlasThreadShare(int threads);
    ~BlasThreadShare();
    BlasThreadShare(const BlasThreadShare&) = delete;
    BlasThreadShare& operator=(const BlasThreadShare&) = delete;

    std::optional<int> threads() const { return applied_; }  // nothing when not OpenBLAS
    // The kernel core OpenBLAS chose at start-up ("Haswell", "SkylakeX", "Prescott"...).
    static std::optional<std::string> openblas_core();

private:
    std::optional<int> previous_;
    std::optional<int> applied_;
};

}  // namespace shakedown::gemm
