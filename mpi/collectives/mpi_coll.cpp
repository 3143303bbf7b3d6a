// mpi_coll: MPI collectives over a size sweep with algorithm and bus bandwidth (nccl-tests'
// factors), exact validation by construction, and per-rank times so a slow rank can be named.
//
// A rank's "own time" per iteration is its lateness entering the call after the common start
// (a barrier) plus its time in the call after the last rank arrived: a late rank keeps its
// lateness, the ranks that waited for it do not inherit it.
#include "comm/sizes.hpp"
#include "core/planted_delay.hpp"
#include "core/problem_list.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "mpi/collectives/collectives.hpp"
#include "mpi/pairs/pingpong.hpp"
#include "mpi/specs.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

namespace shakedown::mpi {
namespace {

struct Timings {
    double call_s = 0.0;     // mean time inside the collective
    double own_s = 0.0;      // mean time attributable to this rank
    double arrival_s = 0.0;  // mean lateness entering the call after the common start
};

Timings time_collective(Collective& collective, MPI_Comm comm, int warmup, int iterations, double delay_s) {
    for (int i = 0; i < warmup; ++i) collective.run(comm);
    const auto n = static_cast<std::size_t>(iterations);
    std::vector<double> arrival(n), finish(n), call(n), latest(n);
    for (std::size_t i = 0; i < n; ++i) {
        MPI_Barrier(comm);
        const double start = MPI_Wtime();
        planted_delay(delay_s);
        const double entry = MPI_Wtime();
        collective.run(comm);
        const double exit = MPI_Wtime();
        arrival[i] = entry - start;
        call[i] = exit - entry;
        finish[i] = exit - start;
    }
    MPI_Allreduce(arrival.data(), latest.data(), iterations, MPI_DOUBLE, MPI_MAX, comm);
    Timings t;
    for (std::size_t i = 0; i < n; ++i) {
        t.call_s += call[i] / iterations;
        t.arrival_s += arrival[i] / iterations;
        t.own_s += (arrival[i] + std::max(0.0, finish[i] - latest[i])) / iterations;
    }
    return t;
}

class MpiColl final : public Test {
public:
    MpiColl() : Test(mpi_coll_spec()) {}

    TestResult run(const RunContext& ctx) const override {
        const auto& p = ctx.params();
        const auto& names = p.names("collectives");
        const auto sizes = comm::size_sweep(p.integer("min_bytes"), p.integer("max_bytes"), p.integer("step_factor"));
        const int iterations = static_cast<int>(p.integer("iterations"));
        const int warmup = static_cast<int>(p.integer("warmup"));

        MPI_Comm comm = ctx.comm();
        const int ranks = ctx.size();
        TestResult result;
        result.samples = SampleTable(mpi_coll_spec().samples);
        result.parameters["collective_index"] = fmt::format("{}", fmt::join(mpi_collective_names, ","));
        ProblemList errors("results with wrong elements");
        std::vector<double> own_times;

        for (const auto& name : names) {
            auto collective = make_collective(name);
            const auto index = static_cast<double>(
                std::find(mpi_collective_names.begin(), mpi_collective_names.end(), name) - mpi_collective_names.begin());
            const auto run_sizes = collective->moves_data() ? sizes : std::vector<std::size_t>{0};
            for (const auto requested : run_sizes) {
                const auto bytes = collective->prepare(requested, comm);
                const auto t = time_collective(*collective, comm, warmup, iterations, ctx.faults().delay_s());
                double job_call_s = 0.0;  // nccl-tests: the slowest rank's time is the job's time
                MPI_Allreduce(&t.call_s, &job_call_s, 1, MPI_DOUBLE, MPI_MAX, comm);
                const auto wrong = collective->check(ctx.faults().corrupt());
                own_times.push_back(t.own_s);

                const double algbw = t.call_s > 0 ? static_cast<double>(bytes) / t.call_s / 1e9 : 0.0;
                const double job_algbw = job_call_s > 0 ? static_cast<double>(bytes) / job_call_s / 1e9 : 0.0;
                const double factor = collective->bus_factor(ranks);
                result.samples.add_row({index, static_cast<double>(bytes), static_cast<double>(iterations), t.call_s * 1e6,
                                        t.own_s * 1e6, t.arrival_s * 1e6, algbw, algbw * factor, job_algbw * factor,
                                        static_cast<double>(wrong.count)});
                if (wrong.count > 0)
                    errors.add(fmt::format("{} {} B: {} wrong element{} of {} (first at {})", name, bytes, wrong.count,
                                           wrong.count == 1 ? "" : "s", wrong.checked, wrong.first),
                               wrong.count);
                if (requested == run_sizes.back()) {
                    if (collective->moves_data()) {
                        result.add_metric(fmt::format("mpi_coll.{}_algbw_gbs", name), job_algbw);
                        result.add_metric(fmt::format("mpi_coll.{}_busbw_gbs", name), job_algbw * factor);
                    } else {
                        result.add_metric(fmt::format("mpi_coll.{}_us", name), job_call_s * 1e6);
                    }
                }
            }
        }
        name_the_slowest_rank(ctx, own_times, result);
        errors.fail(result, fmt::format("{} wrong elements in {} results: ", errors.total(), errors.size()));
        return result;
    }

private:
    // Every rank: its mean own time over the median of the other ranks' (a rank is not its own
    // peer: in a small job a slow rank would drag a median it is part of). Rank 0: which rank
    // was slowest, and by how much over the median of the others.
    static void name_the_slowest_rank(const RunContext& ctx, const std::vector<double>& own_times, TestResult& result) {
        if (ctx.size() < 2) return;
        const double mine = own_times.empty() ? 0.0
                                              : std::accumulate(own_times.begin(), own_times.end(), 0.0) /
                                                    static_cast<double>(own_times.size());
        std::vector<double> all(static_cast<std::size_t>(ctx.size()));
        MPI_Allgather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, ctx.comm());
        std::vector<int> world(static_cast<std::size_t>(ctx.size()));
        const int my_world = ctx.session().world_rank();
        MPI_Allgather(&my_world, 1, MPI_INT, world.data(), 1, MPI_INT, ctx.comm());
        const auto others_median = [&](std::size_t rank) {
            std::vector<double> others = all;
            others.erase(others.begin() + static_cast<std::ptrdiff_t>(rank));
            return stats::median(others);
        };
        const double typical = others_median(static_cast<std::size_t>(ctx.rank()));
        if (!(typical > 0.0)) return;
        result.add_metric(std::string(mpi_coll_names::rank_time_ratio), mine / typical);
        if (ctx.rank() != 0) return;
        const auto slowest = static_cast<std::size_t>(std::max_element(all.begin(), all.end()) - all.begin());
        const double slowest_typical = others_median(slowest);
        if (!(slowest_typical > 0.0)) return;
        result.add_metric(std::string(mpi_coll_names::slowest_rank), world[slowest]);
        result.add_metric(std::string(mpi_coll_names::slowest_rank_ratio), all[slowest] / slowest_typical);
    }
};

}  // namespace

SHAKEDOWN_REGISTER_TEST(MpiColl);

}  // namespace shakedown::mpi
