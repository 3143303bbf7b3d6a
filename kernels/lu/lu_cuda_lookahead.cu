#include "kernels/lu/lu_cuda_lookahead.hpp"
#include "kernels/lu/lookahead_lu.hpp"
#include "kernels/lu/lu_cusolver.hpp"

#include "gpu/cublas_handles.hpp"
#include "gpu/cuda_owners.hpp"

#include <algorithm>
#include <cstddef>

namespace shakedown::kernels::lu {
namespace {

// The panel's pivots (rows of the panel, 1-based) as global rows, and its info as getrf's for the
// whole matrix (the first zero pivot kept).
__global__ void globalize_pivots(const int* panel_pivots, int* pivots, int width, int first, const int* panel_info,
                                 int* info) {
    for (int i = threadIdx.x; i < width; i += blockDim.x) pivots[first + i] = panel_pivots[i] + first;
    if (threadIdx.x == 0 && *panel_info > 0 && *info == 0) *info = *panel_info + first;
}

// Row i swapped with row pivots[i] - 1 for i = first .. first+width-1, in order, one thread per
// column (the swaps of one column depend on each other; the columns do not). The panel's pivots
// are read once per block into shared memory.
__global__ void swap_rows_kernel(double* a, std::size_t lda, const int* pivots, int first, int width, int column_begin,
                                 int column_end) {
    extern __shared__ int shared_pivots[];
    for (int i = threadIdx.x; i < width; i += blockDim.x) shared_pivots[i] = pivots[first + i] - 1;
    __syncthreads();
    const int column = column_begin + blockIdx.x * blockDim.x + threadIdx.x;
    if (column >= column_end) return;
    double* c = a + static_cast<std::size_t>(column) * lda;
    for (int i = 0; i < width; ++i) {
        const int row = first + i;
        const int other = shared_pivots[i];
        if (other != row) {
            const double top = c[row];
            c[row] = c[other];
            c[other] = top;
        }
    }
}

class CudaLuOperations final : public LuOperations {
public:
    CudaLuOperations(int n, cudaStream_t update, cudaStream_t panel, cublasHandle_t update_blas,
                     cublasHandle_t panel_blas, cusolverDnHandle_t solver, double* work, int* panel_pivots,
                     int* panel_info, cudaEvent_t update_done, cudaEvent_t panel_done, double* a, int* pivots, int* info)
        : n_(n), streams_{update, panel}, blas_{update_blas, panel_blas}, solver_(solver), work_(work),
          panel_pivots_(panel_pivots), panel_info_(panel_info), events_{update_done, panel_done}, a_(a),
          pivots_(pivots), info_(info) {}

    void factor_panel(Lane lane, int first, int width) override {
        SHAKEDOWN_CUSOLVER(cusolverDnSetStream(solver_, stream(lane)));
        SHAKEDOWN_CUSOLVER(cusolverDnDgetrf(solver_, n_ - first, width, at(first, first), n_, work_, panel_pivots_,
                                            panel_info_));
        globalize_pivots<<<1, 256, 0, stream(lane)>>>(panel_pivots_, pivots_, width, first, panel_info_, info_);
        SHAKEDOWN_CUDA_LAUNCH("globalize_pivots");
    }

    void swap_rows(Lane lane, int first, int width, int column_begin, int column_end) override {
        const int columns = column_end - column_begin;
        if (columns <= 0) return;
        constexpr int threads = 128;
        swap_rows_kernel<<<(columns + threads - 1) / threads, threads, static_cast<std::size_t>(width) * sizeof(int),
                           stream(lane)>>>(a_, static_cast<std::size_t>(n_), pivots_, first, width, column_begin,
                                           column_end);
        SHAKEDOWN_CUDA_LAUNCH("swap_rows_kernel");
    }

    void solve_block_row(Lane lane, int first, int width, int column_begin, int column_end) override {
        if (column_end <= column_begin) return;
        const double one = 1.0;
        SHAKEDOWN_CUBLAS(cublasDtrsm(blas(lane), CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT,
                                     width, column_end - column_begin, &one, at(first, first), n_,
                                     at(first, column_begin), n_));
    }

    void update_trailing(Lane lane, int first, int width, int column_begin, int column_end) override {
        const int rows = n_ - first - width;
        if (rows <= 0 || column_end <= column_begin) return;
        const double minus = -1.0, one = 1.0;
        SHAKEDOWN_CUBLAS(cublasDgemm(blas(lane), CUBLAS_OP_N, CUBLAS_OP_N, rows, column_end - column_begin, width, &minus,
                                     at(first + width, first), n_, at(first, column_begin), n_, &one,
                                     at(first + width, column_begin), n_));
    }

    void wait(Lane waiter, Lane signaller) override {
        // An event re-recorded later does not disturb a wait already issued on it.
        SHAKEDOWN_CUDA(cudaEventRecord(events_[index(signaller)], stream(signaller)));
        SHAKEDOWN_CUDA(cudaStreamWaitEvent(stream(waiter), events_[index(signaller)], 0));
    }

private:
    static int index(Lane lane) { return lane == Lane::update ? 0 : 1; }
    cudaStream_t stream(Lane lane) const { return streams_[index(lane)]; }
    cublasHandle_t blas(Lane lane) const { return blas_[index(lane)]; }
    double* at(int row, int column) const {
        return a_ + static_cast<std::size_t>(column) * static_cast<std::size_t>(n_) + static_cast<std::size_t>(row);
    }

    int n_;
    cudaStream_t streams_[2];
    cublasHandle_t blas_[2];
    cusolverDnHandle_t solver_;
    double* work_;
    int* panel_pivots_;
    int* panel_info_;
    cudaEvent_t events_[2];
    double* a_;
    int* pivots_;
    int* info_;
};

// cuSOLVER's workspace for the largest panel (the first: all n rows, `width` columns of `a`).
std::size_t panel_work(cusolverDnHandle_t solver, int n, int width, double* a) {
    int work = 0;
    SHAKEDOWN_CUSOLVER(cusolverDnDgetrf_bufferSize(solver, n, width, a, n, &work));
    return static_cast<std::size_t>(std::max(work, 1));
}

}  // namespace

struct CudaLookaheadLu::State {
    State(int n_, int block_)
        : n(n_), block(std::max(1, std::min(block_, n_))), panel_pivots(static_cast<std::size_t>(block)), panel_info(1) {
        SHAKEDOWN_CUBLAS(cublasSetStream(panel_blas.get(), panel_stream.get()));
    }

    int n;
    int block;
    // The panel is the critical path: its kernels go ahead of the trailing update's as SMs free.
    gpu::CudaStream panel_stream{gpu::StreamPriority::highest};
    gpu::CublasHandle update_blas, panel_blas;
    CusolverHandle solver;
    gpu::DeviceBuffer<double> work;  // sized at the first factorization, where a matrix exists to ask about
    gpu::DeviceBuffer<int> panel_pivots, panel_info;
    gpu::CudaEvent update_done, panel_done;
};

CudaLookaheadLu::CudaLookaheadLu(int n, int block) : state_(std::make_unique<State>(n, block)) {}

CudaLookaheadLu::~CudaLookaheadLu() = default;

void CudaLookaheadLu::factor(cudaStream_t stream, double* a, int* pivots, int* info) {
    State& s = *state_;
    if (!s.work.get()) s.work = gpu::DeviceBuffer<double>(panel_work(s.solver.get(), s.n, s.block, a));
    SHAKEDOWN_CUBLAS(cublasSetStream(s.update_blas.get(), stream));
    SHAKEDOWN_CUDA(cudaMemsetAsync(info, 0, sizeof(int), stream));
    CudaLuOperations ops(s.n, stream, s.panel_stream.get(), s.update_blas.get(), s.panel_blas.get(),
                         s.solver.get(), s.work.get(), s.panel_pivots.get(), s.panel_info.get(), s.update_done.get(),
                         s.panel_done.get(), a, pivots, info);
    ops.wait(Lane::panel, Lane::update);  // the matrix and the zeroed info are ready for the first panel
    factor_lookahead(ops, s.n, s.block);  // ends with the panel lane joined into `stream`
}

}  // namespace shakedown::kernels::lu
