// One device under sustained load: the kernels' DGEMM backend (cuBLAS on the bound GPU, or
// the host BLAS through KokkosKernels) multiplying the same random matrices back to back for
// a window, then the window's last product validated by the kernels' checksums, so a wrong
// answer under heat or power stress is caught in the window it happened.
#pragma once

#include "gemm/dgemm_engine.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace shakedown::health {

struct WindowWork {
    std::size_t n = 0;  // matrix order
    std::size_t gemms = 0;
    double gemm_seconds = 0.0;  // time inside the DGEMM calls
    double wall_seconds = 0.0;  // the window, validation excluded
    std::string wrong_answer;   // the checksum failure, empty when the product was right
    double tflops() const;
};

class BurnTarget {
public:
    BurnTarget(std::unique_ptr<gemm::DgemmEngine> backend, std::size_t n);
    // Multiplies until `seconds` have passed (at least once), then validates the last
    // product; `plant_corruption` (test-only) overwrites one element first.
    WindowWork run_window(double seconds, bool plant_corruption);
    std::string backend_name() const { return backend_->name(); }
    std::size_t n() const { return n_; }

private:
    std::unique_ptr<gemm::DgemmEngine> backend_;
    std::size_t n_;
    std::vector<double> a_;
    std::vector<double> b_;
};

}  // namespace shakedown::health
