// Weak scaling measured in the same test, every rank's block the same size: stencil3d's steps and
// cg_fp64's iterations (their *_names.hpp name the figures):
//   phase alone: every rank does its work with no message, all ranks at once, so the memory bus
//                is shared as in the job: T1, the step a rank would take on its own;
//   phase halo:  every rank exchanges its halos with no update: what its faces' messages cost;
//   phase serial communication (cg_fp64: its two allreduces per iteration), which nothing hides;
//   phase job:   the validated work, everything together (the test's own timed steps).
// A phase's step is its wall time over its steps (from a barrier to the last step's end): with
// more ranks than cores the operating system shares them out between steps, which a median of
// single steps would not see. Efficiency = the ranks' median T1 over the job's step (the slowest
// rank's: each rank waits for its face neighbours' halos every step, so the job goes at the
// slowest pace). Predicted from the same run's medians: where the update runs asynchronously (a
// GPU) the interior overlaps the messages as scheduled, step = max(interior, halo) + shell; on the
// host the update runs on the rank's own thread and its messages progress only inside MPI calls,
// so step = T1 + halo; the serial communication adds to either. A job below its prediction that
// no slow rank explains is the analyzer's scaling rule's to name (analysis/rules/figures/scaling_rule).
#pragma once

#include "core/clock.hpp"
#include "core/result.hpp"
#include "core/run_context.hpp"
#include "core/scaling_declaration.hpp"
#include "kernels/stencil/halo_exchange.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace shakedown::kernels {

// One phase's steps: each step's time (total / steps where the backend queues its work), and the
// wall time over the steps.
struct PhaseSteps {
    std::vector<double> rows;
    double step_s = 0.0;
};

struct ScalingPhases {
    PhaseSteps alone;
    PhaseSteps halo;
    PhaseSteps serial_comm;          // empty: none
    double halo_bytes = 0.0;         // sent and received per exchange
    double interior_fraction = 1.0;  // of the rank's cells, updated while the messages travel
    bool overlapped = false;         // the update runs asynchronously beside the exchange
};

// `steps` runs of `one_step` after one untimed run, timed step by step on the host; where the
// backend queues its work (a GPU) the host sees launches only, so each row is the phase's step.
// Collective over the geometry's communicator (a barrier first).
template <class OneStep>
PhaseSteps timed_phase(StencilBackend& backend, const StencilGeometry& geometry, std::int64_t steps, OneStep&& one_step) {
    one_step();
    backend.synchronize();
    PhaseSteps phase;
    phase.rows.reserve(static_cast<std::size_t>(steps));
    MPI_Barrier(geometry.cart());
    const Stopwatch wall;
    for (std::int64_t step = 0; step < steps; ++step) {
        const Stopwatch watch;
        one_step();
        phase.rows.push_back(watch.seconds());
    }
    backend.synchronize();
    phase.step_s = wall.seconds() / static_cast<double>(steps);
    if (backend.interior_runs_asynchronously()) std::fill(phase.rows.begin(), phase.rows.end(), phase.step_s);
    return phase;
}

// True when the geometry's communicator has one rank: its job is its work alone, no phase apart.
bool alone_in_job(const StencilGeometry& geometry);
// The exchange's facts the prediction needs: its bytes, the interior share, whether it overlaps.
void describe_exchange(ScalingPhases& phases, StencilBackend& backend, const HaloExchange& halos);

// The phases alone (`alone_step`: the work of one step with no message) and halo, `steps` each;
// none for a rank alone in the job. Collective.
template <class AloneStep>
ScalingPhases measure_phases(StencilBackend& backend, HaloExchange& halos, const StencilGeometry& geometry, std::int64_t steps,
                             AloneStep&& alone_step) {
    ScalingPhases phases;
    if (alone_in_job(geometry)) return phases;
    phases.alone = timed_phase(backend, geometry, steps, alone_step);
    phases.halo = timed_phase(backend, geometry, steps, [&] { halos.exchange_alone(backend); });
    describe_exchange(phases, backend, halos);
    return phases;
}

// The step the schedule predicts from T1 and the exchange alone (the serial communication apart).
double predicted_step_s(double alone_s, double halo_s, double interior_fraction, bool overlapped);

// Per rank: each phase's step, the halo bandwidth (ranks with neighbours), the step noise (the
// larger scatter of the phases alone and job: (p95 - median) / median of its steps, or its wall
// step over its median step - 1, the time it waited for its core between steps); job-wide
// (collective over `comm`): the efficiency and its prediction, the median halo bandwidth. Without
// a phase alone (a rank alone in the job) the job is the work alone.
void add_scaling_metrics(TestResult& result, const ScalingFigureNames& names, const ScalingPhases& phases,
                         const PhaseSteps& job, MPI_Comm comm);

}  // namespace shakedown::kernels
