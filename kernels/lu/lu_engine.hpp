// Where lu_fp64 factors: ScaLAPACK's pdgetrf/pdgetrs over a process grid of host ranks (one LU
// spanning them, like HPL), or cuSOLVER's getrf/getrs on one GPU. The test owns sizing,
// repetitions and judging; an engine owns the matrix on its memory, generates it from the seed
// (lu_math.hpp: the same entries everywhere), times factorization plus solve, and measures
// what the residual needs outside the timing.
#pragma once

#include "kernels/lu/lu_gpu_algorithm.hpp"
#include "kernels/lu/lu_grid.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace shakedown::kernels::lu {

struct LuOutcome {
    double seconds = 0.0;        // pdgetrf + pdgetrs (getrf + getrs): the slowest rank's
    int info = 0;                // the factorization's: > 0 means U(info, info) is exactly zero
    double residual_norm = 0.0;  // ||Ax - b||oo
    double matrix_norm = 0.0;    // ||A||oo
    double solution_norm = 0.0;  // ||x||oo
    double rhs_norm = 0.0;       // ||b||oo
};

class LuEngine {
public:
    virtual ~LuEngine() = default;
    virtual std::string name() const = 0;  // "scalapack 2x2, block 128", "cusolver", "lookahead, block 1024"
    // Generates A and b from `seed`, factors and solves (timed), then the norms. `corrupt`:
    // the planted fault: one element of the factor changed between factorization and solve,
    // as a bit flip in memory would. Collective over the engine's ranks.
    virtual LuOutcome solve(std::uint64_t seed, bool corrupt) = 0;
};

// Collective over `comm` (every rank of it joins the grid). Throws InputError when the grid does
// not hold comm's ranks; GpuError/std::runtime_error from the libraries.
std::unique_ptr<LuEngine> make_host_lu(MPI_Comm comm, std::size_t n, int block, ProcessGrid grid);
// `block`: the look-ahead LU's panel width (cuSOLVER's getrf chooses its own).
std::unique_ptr<LuEngine> make_gpu_lu(int device, std::size_t n, GpuLuAlgorithm algorithm, int block);

bool host_lu_built();  // ScaLAPACK found at build time
bool gpu_lu_built();   // CUDA (cuSOLVER) built

}  // namespace shakedown::kernels::lu
