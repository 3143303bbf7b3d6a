#include "kernels/train/train_phases.hpp"

#include "kernels/train/scaling_model.hpp"

#include "core/clock.hpp"
#include "core/communicator.hpp"
#include "stats/summary.hpp"

#include <algorithm>

namespace shakedown::kernels::train {

PhaseFigures run_phase(TrainEngine& engine, const std::vector<Bucket>& buckets, MPI_Comm together, int warmup,
                       int steps, double delay_s) {
    PhaseFigures figures;
    std::vector<double> compute;
    std::vector<std::vector<double>> ready;
    for (int step = 0; step < warmup + steps; ++step) {
        MPI_Barrier(together);
        if (step == warmup) figures.window.start_utc = now_utc();
        const StepTimes times = engine.step(buckets, delay_s);
        if (step < warmup) continue;
        figures.window.end_utc = now_utc();
        figures.step_s.push_back(times.seconds);
        figures.exposed_s.push_back(std::max(0.0, times.seconds - times.compute_s));
        compute.push_back(times.compute_s);
        ready.push_back(times.bucket_ready_s);
    }
    figures.median_s = stats::median(figures.step_s);
    figures.p95_s = stats::percentile(figures.step_s, 0.95);
    figures.compute_s = stats::median(compute);
    figures.exposed_median_s = stats::median(figures.exposed_s);
    figures.bucket_ready_s = median_per_bucket(ready);
    return figures;
}

double measure_bus_gbs(TrainEngine& engine, MPI_Comm comm, const std::vector<Bucket>& buckets, int repetitions) {
    int size = 1;
    MPI_Comm_size(comm, &size);
    if (size < 2 || buckets.empty()) return 0.0;
    std::size_t largest = 0;
    for (const Bucket& bucket : buckets) largest = std::max(largest, bucket.elements);
    const double seconds = engine.time_allreduce(largest, repetitions);
    return allreduce_bus_gbs(static_cast<double>(largest * engine.element_bytes()), size, seconds);
}

std::vector<std::vector<std::pair<int, int>>> round_robin_rounds(int players, int rounds) {
    std::vector<std::vector<std::pair<int, int>>> schedule;
    if (players < 2) return schedule;
    const int circle = players % 2 == 0 ? players : players + 1;  // an odd count gets a bye
    rounds = std::min(rounds, circle - 1);
    for (int round = 0; round < rounds; ++round) {
        std::vector<std::pair<int, int>> pairs;
        const auto add = [&](int a, int b) {
            if (a < players && b < players) pairs.emplace_back(std::min(a, b), std::max(a, b));
        };
        add(round, circle - 1);
        for (int i = 1; i < circle / 2; ++i) add((round + i) % (circle - 1), (round - i + circle - 1) % (circle - 1));
        schedule.push_back(std::move(pairs));
    }
    return schedule;
}

std::optional<double> measure_node_link_gbs(TrainEngine& engine, MPI_Comm comm, MPI_Comm node_comm,
                                            const std::vector<Bucket>& buckets, int repetitions) {
    int node_rank = 0;
    MPI_Comm_rank(node_comm, &node_rank);
    const Communicator leaders = Communicator::split(comm, node_rank == 0 ? 0 : MPI_UNDEFINED, 0);
    int leader_count = 0;
    if (leaders.valid()) leader_count = leaders.size();
    MPI_Bcast(&leader_count, 1, MPI_INT, 0, node_comm);
    MPI_Allreduce(MPI_IN_PLACE, &leader_count, 1, MPI_INT, MPI_MAX, comm);
    if (leader_count < 2) return std::nullopt;

    const int me = leaders.valid() ? leaders.rank() : -1;
    std::vector<double> mine;
    for (const auto& round : round_robin_rounds(leader_count, 3)) {
        int color = MPI_UNDEFINED;
        for (const auto& [a, b] : round)
            if (me == a || me == b) color = a;
        const Communicator pair = Communicator::split(comm, color, me);
        if (!pair.valid()) continue;
        engine.reduce_over(pair.get());
        mine.push_back(measure_bus_gbs(engine, pair.get(), buckets, repetitions));
        engine.reduce_over(MPI_COMM_NULL);
    }
    if (!leaders.valid() || mine.empty()) return std::nullopt;
    return stats::median(mine);
}

}  // namespace shakedown::kernels::train
