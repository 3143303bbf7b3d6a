// The conjugate gradient iteration over a CgBackend, and the check of its answer. Per
// iteration: one halo exchange of p with the SpMV q = A p (stencil3d's HaloExchange), the local
// p.q and one MPI_Allreduce, the fused x, r update with the local r.r and a second
// MPI_Allreduce, and p = r + beta p. Every decomposition does the same arithmetic up to the
// order of the two sums, so 1, 2 or 4 ranks give the same answer to rounding. A rank alone in
// comm with a backend that queues iterations (CgBackend::queues_iterations: the GPU) needs no
// allreduce: the same iteration runs on the backend's scalars and the host only queues it,
// reading the state at the end (and every 32 iterations with a tolerance, to stop queueing).
// allreduce_s is then 0 and halo_step_s the host's launch time.
#pragma once

#include "kernels/cg/cg_backend.hpp"
#include "kernels/cg/cg_math.hpp"
#include "kernels/stencil/halo_exchange.hpp"

#include <mpi.h>

#include <cstdint>
#include <string>

namespace shakedown::kernels::cg {

struct SolveOptions {
    std::int64_t iterations = 0;      // at most this many
    double tolerance = 0.0;           // > 0: stop once ||r_k|| / ||b|| <= tolerance (recursive residual)
    bool corrupt = false;             // planted fault: one halo value of p off by ||b|| in iteration 0
    double delay_s = 0.0;             // planted slowness per iteration
};

struct SolveTiming {
    double total_s = 0.0;      // the iterations, barrier to barrier-free end of the last one
    double allreduce_s = 0.0;  // inside the two MPI_Allreduce calls of each iteration
    double halo_step_s = 0.0;  // halo exchange and SpMV
};

struct SolveOutcome {
    std::int64_t iterations = 0;    // done
    double recursive_residual = 0;  // ||r_k|| / ||b|| as the iteration saw it
    std::string breakdown;          // non-empty when p.q was not positive (A is SPD: a fault)
    SolveTiming timing;
};

// Collective over comm (the geometry's Cartesian communicator). b must be in place (take_rhs).
SolveOutcome solve(CgBackend& backend, HaloExchange& halos, MPI_Comm comm, const SolveOptions& options);

struct SolutionCheck {
    double relative_error = 0.0;     // ||x - x*|| / ||x*||
    double relative_residual = 0.0;  // ||b - A x|| / ||b||, A x recomputed with one more halo exchange
    double solution_norm = 0.0;      // ||x*||
    double rhs_norm = 0.0;           // ||b||
};

// Collective: recomputes the true residual (overwrites p and q).
SolutionCheck check_solution(CgBackend& backend, HaloExchange& halos, MPI_Comm comm);

}  // namespace shakedown::kernels::cg
