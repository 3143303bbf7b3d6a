// The look-ahead LU (lookahead_lu.hpp) on one GPU: the update lane is the caller's stream, the
// panel lane a second stream of its own; panels through cuSOLVER's getrf of the tall-skinny
// panel, the U block row and trailing product through cuBLAS dtrsm and dgemm (one handle per
// stream), row swaps through a small kernel, the lanes ordered by events. CUDA only.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>

namespace shakedown::kernels::lu {

class CudaLookaheadLu {
public:
    // For n x n matrices (leading dimension n) factored in blocks of `block` columns.
    CudaLookaheadLu(int n, int block);
    ~CudaLookaheadLu();
    CudaLookaheadLu(const CudaLookaheadLu&) = delete;
    CudaLookaheadLu& operator=(const CudaLookaheadLu&) = delete;

    // Issues the factorization of `a` in place on `stream` (after the work already on it):
    // pivots as getrf's (global rows, 1-based), *info as getrf's. Returns without waiting; work
    // issued on `stream` afterwards sees the finished factors.
    void factor(cudaStream_t stream, double* a, int* pivots, int* info);

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace shakedown::kernels::lu
