#include "kernels/stencil/stencil_scaling.hpp"

#include "stats/summary.hpp"

#include <array>
#include <cmath>
#include <string>

namespace shakedown::kernels {
namespace {

// How far a phase's steps scatter: (p95 - median) / median of its steps, or how far its wall time
// per step exceeds its median step where that is more. The second is time the rank waited for its
// core between steps (ranks sharing cores: 4 ranks on 2 gave a wall step 2-3x the median step),
// which scatters its figures as much and no single step shows.
double noise_of(const PhaseSteps& phase) {
    if (phase.rows.empty()) return 0.0;
    const double median = stats::median(phase.rows);
    if (!(median > 0.0)) return 0.0;
    return std::max((stats::percentile(phase.rows, 0.95) - median) / median, phase.step_s / median - 1.0);
}

int size_of(MPI_Comm comm) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    return size;
}

}  // namespace

bool alone_in_job(const StencilGeometry& geometry) { return size_of(geometry.cart()) == 1; }

void describe_exchange(ScalingPhases& phases, StencilBackend& backend, const HaloExchange& halos) {
    phases.halo_bytes = halos.exchanged_bytes(backend);
    phases.interior_fraction = halos.interior_fraction();
    phases.overlapped = backend.interior_runs_asynchronously() || backend.exchanges_halos_on_device();
}

double predicted_step_s(double alone_s, double halo_s, double interior_fraction, bool overlapped) {
    if (!overlapped) return alone_s + halo_s;
    const double interior_s = alone_s * interior_fraction;
    return std::max(interior_s, halo_s) + (alone_s - interior_s);
}

void add_scaling_metrics(TestResult& result, const ScalingFigureNames& names, const ScalingPhases& phases,
                         const PhaseSteps& job_phase, MPI_Comm comm) {
    const bool has_serial = !names.serial_comm_step_s.empty();
    // A rank alone in the job measured no phase alone: its job is its work alone (efficiency 1).
    const PhaseSteps& alone_phase = phases.alone.rows.empty() ? job_phase : phases.alone;
    const double alone = alone_phase.step_s, halo = phases.halo.step_s, job = job_phase.step_s;
    const double serial = has_serial ? phases.serial_comm.step_s : 0.0;
    const double halo_gbs = phases.halo_bytes > 0.0 && halo > 0.0 ? phases.halo_bytes / halo * 1e-9 : std::nan("");
    result.add_metric(std::string(names.alone_step_s), alone);
    result.add_metric(std::string(names.halo_step_s), halo);
    if (has_serial) result.add_metric(std::string(names.serial_comm_step_s), serial);
    result.add_metric(std::string(names.job_step_s), job);
    if (std::isfinite(halo_gbs)) result.add_metric(std::string(names.halo_gbs), halo_gbs);
    result.add_metric(std::string(names.step_noise), std::max(noise_of(alone_phase), noise_of(job_phase)));

    // Every rank's figures, so every rank records the same job-wide ones.
    constexpr int per_rank = 6;
    const std::array<double, per_rank> mine{alone, halo, serial, job, phases.interior_fraction, halo_gbs};
    std::vector<double> all(static_cast<std::size_t>(size_of(comm)) * per_rank);
    MPI_Allgather(mine.data(), per_rank, MPI_DOUBLE, all.data(), per_rank, MPI_DOUBLE, comm);
    std::array<std::vector<double>, per_rank> columns;
    for (std::size_t i = 0; i < all.size(); ++i)
        if (std::isfinite(all[i])) columns[i % per_rank].push_back(all[i]);
    const double median_alone = stats::median(columns[0]);
    const double slowest_job = *std::max_element(columns[3].begin(), columns[3].end());
    const double predicted = predicted_step_s(median_alone, stats::median(columns[1]), stats::median(columns[4]), phases.overlapped) +
                             stats::median(columns[2]);
    result.add_metric(std::string(names.job_efficiency), median_alone / slowest_job);
    result.add_metric(std::string(names.predicted_job_efficiency), median_alone / predicted);
    if (!columns[5].empty()) result.add_metric(std::string(names.job_halo_gbs), stats::median(columns[5]));
    result.parameters["scaling_prediction"] =
        std::string(phases.overlapped ? "overlapped as scheduled: max(interior, halo exchange) + shell"
                                      : "not overlapped: the update runs on the rank's thread, messages progress in MPI calls: "
                                        "T1 + halo exchange") +
        (has_serial ? " + the serial communication" : "");
}

}  // namespace shakedown::kernels
