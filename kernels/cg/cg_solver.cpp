#include "kernels/cg/cg_solver.hpp"

#include "core/clock.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

namespace shakedown::kernels::cg {
namespace {

// One MPI_Allreduce of `count` doubles in place, its wall time added to `seconds`.
void sum_over_ranks(double* values, int count, MPI_Comm comm, double& seconds) {
    const Stopwatch watch;
    MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_SUM, comm);
    seconds += watch.seconds();
}

// With a tolerance, the queued loop reads the backend's state every this many iterations to
// stop queueing once the solve has stopped (the count stays exact: later ones do nothing).
constexpr std::int64_t queued_poll_iterations = 32;

// Iteration k's halo exchange, timed; the planted corruption goes into the first one.
void exchange_halos(CgBackend& backend, HaloExchange& halos, const SolveOptions& options, double bb, std::int64_t k,
                    SolveOutcome& outcome) {
    if (options.corrupt && k == 0) backend.corrupt_next_halo(std::sqrt(bb));
    const Stopwatch step;
    halos.step(backend);
    outcome.timing.halo_step_s += step.seconds();
}

// One rank alone and a backend that keeps the scalars: every iteration is only queued, the
// host waits once at the end (and every queued_poll_iterations with a tolerance).
SolveOutcome solve_queued(CgBackend& backend, HaloExchange& halos, MPI_Comm comm, const SolveOptions& options, double bb) {
    SolveOutcome outcome;
    backend.queue_start(bb, options.tolerance);
    MPI_Barrier(comm);
    const Stopwatch wall;
    for (std::int64_t k = 0; k < options.iterations; ++k) {
        exchange_halos(backend, halos, options, bb, k, outcome);
        backend.queue_iteration();
        if (options.delay_s > 0.0) std::this_thread::sleep_for(std::chrono::duration<double>(options.delay_s));
        if (options.tolerance > 0.0 && (k + 1) % queued_poll_iterations == 0 && backend.queued_state().stopped) break;
    }
    const CgBackend::QueuedState state = backend.queued_state();
    outcome.timing.total_s = wall.seconds();
    backend.queue_end();
    outcome.iterations = state.iterations;
    if (state.breakdown)
        outcome.breakdown = fmt::format("p.q = {:.3g} in iteration {} (A is positive definite: p.q > 0)", state.breakdown_pq,
                                        state.iterations);
    outcome.recursive_residual = bb > 0.0 ? std::sqrt(state.rr / bb) : 0.0;
    return outcome;
}

}  // namespace

SolveOutcome solve(CgBackend& backend, HaloExchange& halos, MPI_Comm comm, const SolveOptions& options) {
    SolveOutcome outcome;
    double setup_s = 0.0;
    double bb = backend.start_solve();
    sum_over_ranks(&bb, 1, comm, setup_s);
    int ranks = 0;
    MPI_Comm_size(comm, &ranks);
    if (ranks == 1 && backend.queues_iterations()) return solve_queued(backend, halos, comm, options, bb);
    double rr = bb;
    MPI_Barrier(comm);
    const Stopwatch wall;
    for (std::int64_t k = 0; k < options.iterations; ++k) {
        exchange_halos(backend, halos, options, bb, k, outcome);
        double pq = backend.dot_pq();
        sum_over_ranks(&pq, 1, comm, outcome.timing.allreduce_s);
        if (!(pq > 0.0)) {  // every rank sees the same sum: all stop together
            outcome.breakdown = fmt::format("p.q = {:.3g} in iteration {} (A is positive definite: p.q > 0)", pq, k);
            break;
        }
        const double alpha = rr / pq;
        double next = backend.update_xr(alpha);
        sum_over_ranks(&next, 1, comm, outcome.timing.allreduce_s);
        const double beta = next / rr;
        rr = next;
        backend.update_p(beta);
        ++outcome.iterations;
        if (options.delay_s > 0.0) std::this_thread::sleep_for(std::chrono::duration<double>(options.delay_s));
        if (options.tolerance > 0.0 && std::sqrt(rr / bb) <= options.tolerance) break;
    }
    backend.synchronize();
    outcome.timing.total_s = wall.seconds();
    outcome.recursive_residual = bb > 0.0 ? std::sqrt(rr / bb) : 0.0;
    return outcome;
}

SolutionCheck check_solution(CgBackend& backend, HaloExchange& halos, MPI_Comm comm) {
    backend.p_from_x();
    halos.step(backend);
    backend.synchronize();
    std::array<double, 4> sums{};
    const auto residual = backend.residual_sums();
    const auto error = backend.error_sums();
    sums = {residual[0], residual[1], error[0], error[1]};
    double ignored = 0.0;
    sum_over_ranks(sums.data(), 4, comm, ignored);
    SolutionCheck check;
    check.rhs_norm = std::sqrt(sums[1]);
    check.solution_norm = std::sqrt(sums[3]);
    check.relative_residual = sums[1] > 0.0 ? std::sqrt(sums[0] / sums[1]) : std::sqrt(sums[0]);
    check.relative_error = sums[3] > 0.0 ? std::sqrt(sums[2] / sums[3]) : std::sqrt(sums[2]);
    // NaN (a corrupted run gone wild) must fail the checks, never pass them.
    if (std::isnan(check.relative_residual)) check.relative_residual = std::numeric_limits<double>::infinity();
    if (std::isnan(check.relative_error)) check.relative_error = std::numeric_limits<double>::infinity();
    return check;
}

}  // namespace shakedown::kernels::cg
