// Where DGEMM runs: the host through KokkosBlas::gemm (the BLAS TPL, OpenBLAS on Debian)
// or the bound GPU through cuBLAS. The test owns sizing, statistics and validation; a
// backend owns the three n x n column-major matrices on its memory.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace shakedown::gemm {

class DgemmEngine {
public:
    virtual ~DgemmEngine() = default;
    virtual std::string name() const = 0;
    // Copies the inputs in (column-major, n x n).
    virtual void load(const std::vector<double>& a, const std::vector<double>& b) = 0;
    // C = A * B once, to completion; returns its seconds.
    virtual double run_timed() = 0;
    virtual std::vector<double> result() const = 0;  // C, column-major
    // Test-only planted fault: overwrite C(row, col) as broken hardware would.
    virtual void corrupt(std::size_t row, std::size_t col) = 0;
};

std::unique_ptr<DgemmEngine> make_host_dgemm(std::size_t n);             // throws without Kokkos
std::unique_ptr<DgemmEngine> make_cuda_dgemm(std::size_t n, int device);  // throws without CUDA

}  // namespace shakedown::gemm
