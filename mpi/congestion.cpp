// congestion: how much the fabric's latency and bandwidth suffer under load, GPCNeT's way. The
// measuring ranks run the random ring alone (baseline), then again while the congesting ranks
// run their congestors; the impact factor is congested over baseline (bandwidth: baseline over
// congested), so 1 is no impact and above 1 worse, job-wide and per node. The planted delay is
// slept in the congested phase only: a rank whose links degrade under load, which is what the
// test exists to find.
#include "comm/pairs.hpp"
#include "core/communicator.hpp"
#include "core/problem_list.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "mpi/congestion_ring.hpp"
#include "mpi/congestion_roles.hpp"
#include "mpi/congestors.hpp"
#include "mpi/specs.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

namespace shakedown::mpi {
namespace {

// What every rank contributes to the figures, gathered to all.
enum Field { measures, base_p50, base_p99, base_bw, cong_p50, cong_p99, cong_bw, congestor_rounds, field_count };
using Row = std::array<double, field_count>;

constexpr std::array<std::string_view, 3> statistics = {"latency_p50", "latency_p99", "bandwidth"};

// Impact of each statistic from the rows given: the median of each figure over them, congested
// over baseline (bandwidth the other way round).
std::array<double, 3> impact(const std::vector<const Row*>& rows, Row& medians) {
    for (int f = base_p50; f <= cong_bw; ++f) {
        std::vector<double> values;
        for (const Row* row : rows) values.push_back((*row)[static_cast<std::size_t>(f)]);
        medians[static_cast<std::size_t>(f)] = stats::median(values);
    }
    return {medians[cong_p50] / medians[base_p50], medians[cong_p99] / medians[base_p99], medians[base_bw] / medians[cong_bw]};
}

class Congestion final : public Test {
public:
    Congestion() : Test(congestion_spec()) {}

    TestResult run(const RunContext& ctx) const override {
        const auto& params = ctx.params();
        const auto placement = comm::gather_placement(ctx.comm(), ctx.session());
        const CongestionRoles roles = congestion_roles(placement, params.real("congestor_fraction"));
        const bool congests = roles.congests[static_cast<std::size_t>(ctx.rank())];
        const Communicator group = Communicator::split(ctx.comm(), congests ? 1 : 0, ctx.rank());
        std::vector<int> world_of_measuring;
        int congestor_root = -1;
        for (std::size_t r = 0; r < placement.size(); ++r) {
            if (!roles.congests[r]) world_of_measuring.push_back(placement[r].world_rank);
            else if (congestor_root < 0) congestor_root = static_cast<int>(r);
        }
        const int measuring_leader = static_cast<int>(
            std::find(roles.congests.begin(), roles.congests.end(), false) - roles.congests.begin());

        Row mine{};
        ProblemList mismatches("payload mismatches");
        ctx.session().activity().set_phase("baseline: the measuring ranks alone", {});
        MPI_Barrier(ctx.comm());
        PhaseFigures baseline, congested;
        const RingSpec spec = read_spec(params);
        if (!congests) {
            const RingPlace place = ring_place(random_ring(group.size(), static_cast<std::uint64_t>(params.integer("seed"))),
                                               group.rank(), world_of_measuring);
            baseline = measure_ring_phase(group.get(), place, spec, 0, {});
        }
        ctx.session().activity().set_phase("congested: the measuring ranks beside the congestors", {});
        MPI_Barrier(ctx.comm());
        if (!congests) {
            const RingPlace place = ring_place(random_ring(group.size(), static_cast<std::uint64_t>(params.integer("seed"))),
                                               group.rank(), world_of_measuring);
            congested = measure_ring_phase(group.get(), place, spec, 1, {ctx.faults().delay_s(), ctx.faults().corrupt()});
            if (ctx.rank() == measuring_leader) stop_congestors(ctx.comm(), congestor_root);
            for (auto* phase : {&baseline, &congested})
                if (phase->mismatch) mismatches.add(*phase->mismatch);
            mine = {1.0, baseline.latency_p50_us, baseline.latency_p99_us, baseline.bandwidth_gbs,
                    congested.latency_p50_us, congested.latency_p99_us, congested.bandwidth_gbs, 0.0};
        } else {
            const CongestorSpec load{params.names("congestors"), static_cast<std::size_t>(params.integer("alltoall_bytes")),
                                     static_cast<std::size_t>(params.integer("congestor_bytes")),
                                     static_cast<int>(params.integer("incast_targets"))};
            mine[congestor_rounds] = static_cast<double>(run_congestors(group.get(), ctx.comm(), measuring_leader, load).rounds);
        }
        std::vector<Row> rows(placement.size());
        MPI_Allgather(mine.data(), field_count, MPI_DOUBLE, rows.data(), field_count, MPI_DOUBLE, ctx.comm());

        TestResult result;
        result.parameters["communicator_ranks"] = std::to_string(ctx.size());
        result.parameters["measuring_ranks"] = std::to_string(roles.measuring);
        result.parameters["roles"] = roles.describe();
        result.parameters["measuring"] = fmt::format("{}", congests ? "no: congesting" : "yes");
        add_figures(result, ctx.rank(), placement, rows);
        mismatches.fail(result);
        return result;
    }

private:
    static RingSpec read_spec(const TestParams& p) {
        const auto count = [&](const char* name) { return static_cast<int>(p.integer(name)); };
        return RingSpec{static_cast<std::size_t>(p.integer("latency_bytes")), count("latency_warmup"),
                        count("latency_iterations"),   static_cast<std::size_t>(p.integer("bandwidth_bytes")),
                        count("bandwidth_window"),     count("bandwidth_warmup"),
                        count("bandwidth_iterations")};
    }

    static void add_figures(TestResult& result, int me, const std::vector<comm::RankPlacement>& placement,
                            const std::vector<Row>& rows) {
        std::vector<const Row*> measuring;
        std::map<int, std::vector<const Row*>> by_node;
        std::map<int, int> first_measuring_of_node;
        double rounds = 0.0;
        for (std::size_t r = 0; r < rows.size(); ++r) {
            rounds = std::max(rounds, rows[r][congestor_rounds]);
            if (rows[r][measures] == 0.0) continue;
            measuring.push_back(&rows[r]);
            by_node[placement[r].node_index].push_back(&rows[r]);
            first_measuring_of_node.emplace(placement[r].node_index, static_cast<int>(r));
        }
        const int node = placement[static_cast<std::size_t>(me)].node_index;
        if (first_measuring_of_node.count(node) != 0 && first_measuring_of_node[node] == me) {
            Row medians{};
            const auto factors = impact(by_node[node], medians);
            for (std::size_t s = 0; s < statistics.size(); ++s)
                result.add_metric(fmt::format("congestion.node_{}_impact", statistics[s]), factors[s]);
        }
        result.samples = SampleTable(congestion_spec().samples);  // rows on rank 0 only
        if (me != 0) return;
        Row medians{};
        const auto factors = impact(measuring, medians);
        for (std::size_t s = 0; s < statistics.size(); ++s)
            result.add_metric(fmt::format("congestion.{}_impact", statistics[s]), factors[s]);
        result.add_metric("congestion.baseline_latency_p50_us", medians[base_p50]);
        result.add_metric("congestion.baseline_latency_p99_us", medians[base_p99]);
        result.add_metric("congestion.baseline_bandwidth_gbs", medians[base_bw]);
        result.add_metric("congestion.congested_latency_p50_us", medians[cong_p50]);
        result.add_metric("congestion.congested_latency_p99_us", medians[cong_p99]);
        result.add_metric("congestion.congested_bandwidth_gbs", medians[cong_bw]);
        result.parameters["congestor_rounds"] = fmt::format("{:.0f}", rounds);
        for (std::size_t r = 0; r < rows.size(); ++r)
            if (rows[r][measures] != 0.0)
                result.samples.add_row({static_cast<double>(placement[r].world_rank), static_cast<double>(placement[r].node_index),
                                        rows[r][base_p50], rows[r][base_p99], rows[r][base_bw], rows[r][cong_p50],
                                        rows[r][cong_p99], rows[r][cong_bw]});
    }
};

}  // namespace

SHAKEDOWN_REGISTER_TEST(Congestion);

}  // namespace shakedown::mpi
