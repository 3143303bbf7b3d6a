// allpairs: latency and bandwidth of every ordered rank pair in N-1 ring-shift rounds, so the
// one slow link or slow node among hundreds stands out without N x N simultaneous traffic.
// Rank 0's samples hold the whole matrix; every rank reports the worst link it is part of
// against the job-wide median, intra-node and inter-node links kept apart.
// Scope nodes: the same rounds over the node leaders only (comm::leaders_of), N-1 rounds for N
// nodes instead of N x G - 1, so the node-level matrix fits at thousands of nodes; the samples
// name the leaders' world ranks, which the analyzer maps to their nodes as any rank. The other
// ranks record a pass without figures, as the node-level tests do, and wait at the end.
// pairs_per_node K: K (rounded up to even) sampled shifts instead of all of them
// (mpi/allpairs/shift_schedule.hpp), each participant's K peers in both directions.
#include "comm/link_matrix_columns.hpp"
#include "comm/node_leaders.hpp"
#include "core/problem_list.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "core/waiver_reasons.hpp"
#include "hardware/network_capacity.hpp"
#include "mpi/allpairs/link_matrix.hpp"
#include "mpi/allpairs/ring_shift.hpp"
#include "mpi/allpairs/shift_schedule.hpp"
#include "mpi/specs.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace shakedown::mpi {
namespace {

class AllPairs final : public Test {
public:
    AllPairs() : Test(allpairs_spec()) {}

    // Scope nodes on one node has no pair to measure: the launch's choice, not the node's.
    std::optional<std::string> waiver(const RunContext& probe) const override {
        const int nodes = probe.session().identity().node_count;
        if (node_scope(probe.params()) && nodes < 2)
            return job_too_small_waiver("2 nodes with scope nodes", fmt::format("this run has {}", nodes));
        return std::nullopt;
    }

    TestResult run(const RunContext& ctx) const override {
        if (!node_scope(ctx.params())) return measure(ctx, ctx.comm());
        const Communicator leaders = comm::leaders_of(ctx);
        TestResult result;
        if (leaders.valid()) {
            result = measure(ctx, leaders.get());
            result.parameters["matrix_ranks"] = fmt::format("{} node leaders", leaders.size());
        } else {
            result.parameters["role"] = "not a node leader: the node leaders measure the links (scope nodes)";
        }
        comm::wait_for_leaders(ctx, leaders.valid(), "not a node leader: waiting for the node leaders' ring-shift rounds");
        return result;
    }

private:
    static bool node_scope(const TestParams& params) { return params.text("scope") == "nodes"; }

    // The ring-shift rounds over `comm` (every rank, or the node leaders), its matrix on its rank 0.
    static TestResult measure(const RunContext& ctx, MPI_Comm comm) {
        int me = 0, size = 1;
        MPI_Comm_rank(comm, &me);
        MPI_Comm_size(comm, &size);
        ShiftSpec spec = read_spec(ctx.params());
        spec.delay_s = ctx.faults().delay_s();
        spec.corrupt = ctx.faults().corrupt();
        const auto placement = comm::gather_placement(comm, ctx.session());
        const int rounds = static_cast<int>(ctx.params().integer("rounds"));
        const std::vector<int> shifts = schedule_shifts(size, ctx.params().optional_integer("pairs_per_node"),
                                                        static_cast<std::uint64_t>(ctx.params().integer("seed")));
        ProblemList mismatches("payload mismatches");
        TestResult result;
        result.samples = SampleTable(link_matrix_columns::columns());
        result.parameters["peers_measured"] = std::to_string(shifts.size());
        if (static_cast<int>(shifts.size()) < size - 1)
            result.parameters["sampled_shifts"] = fmt::format("{}", fmt::join(shifts, ","));
        // Per shift, every round's figures: the matrix gets one row per round, the rank's own
        // figures come from the median over the rounds.
        std::vector<std::vector<double>> latency_rounds(shifts.size());
        std::vector<std::vector<double>> bandwidth_rounds(shifts.size());
        for (int repeat = 1; repeat <= rounds; ++repeat) {
            RankMeasurements mine;
            mine.shifts = shifts;
            for (std::size_t i = 0; i < shifts.size(); ++i) {
                const int shift = shifts[i];
                const int to = placement[static_cast<std::size_t>((me + shift) % size)].world_rank;
                const int from = placement[static_cast<std::size_t>((me - shift + size) % size)].world_rank;
                ctx.session().activity().set_phase(
                    fmt::format("round {} of {}, shift {} ({} of {}): to rank {}, from rank {}", repeat, rounds, shift,
                                i + 1, shifts.size(), to, from),
                    {to, from});
                const auto round = measure_shift(comm, shift, spec);
                mine.latency_to_us.push_back(round.latency_us);
                mine.bandwidth_to_gbs.push_back(round.bandwidth_gbs);
                latency_rounds[i].push_back(round.latency_us);
                bandwidth_rounds[i].push_back(round.bandwidth_gbs);
                if (round.mismatch) mismatches.add(*round.mismatch);
            }
            for (const auto& link : gather_link_matrix(comm, mine, placement).links)
                result.samples.add_row({static_cast<double>(placement[link.src].world_rank),
                                        static_cast<double>(placement[link.dst].world_rank), link.intra_node ? 1.0 : 0.0,
                                        link.latency_us, link.bandwidth_gbs});
        }
        RankMeasurements typical;
        typical.shifts = shifts;
        for (std::size_t shift = 0; shift < latency_rounds.size(); ++shift) {
            typical.latency_to_us.push_back(stats::median(latency_rounds[shift]));
            typical.bandwidth_to_gbs.push_back(stats::median(bandwidth_rounds[shift]));
        }
        const auto matrix = gather_link_matrix(comm, typical, placement);
        if (!matrix.links.empty()) {
            const auto worst = worst_links_first(matrix.links).front();
            result.parameters["worst_link"] = fmt::format("{} -> {} ({}): {:.3f} GB/s, {:.2f} us",
                                                          placement[worst.src].world_rank, placement[worst.dst].world_rank,
                                                          worst.intra_node ? "intra-node" : "inter-node",
                                                          worst.bandwidth_gbs, worst.latency_us);
        }
        add_metrics(result, matrix, hardware::network_capacity_gbs(ctx.inventory()));
        mismatches.fail(result);
        return result;
    }

    static ShiftSpec read_spec(const TestParams& p) {
        const auto count = [&](const char* name) { return static_cast<int>(p.integer(name)); };
        ShiftSpec spec;
        spec.latency_bytes = static_cast<std::size_t>(p.integer("latency_bytes"));
        spec.latency_iterations = count("latency_iterations");
        spec.latency_warmup = count("latency_warmup");
        spec.bandwidth_bytes = static_cast<std::size_t>(p.integer("bandwidth_bytes"));
        spec.bandwidth_window = count("bandwidth_window");
        spec.bandwidth_iterations = count("bandwidth_iterations");
        spec.bandwidth_warmup = count("bandwidth_warmup");
        return spec;
    }

    // `network_gbs`: this node's network capacity, the nominal of its best inter-node link.
    static void add_metrics(TestResult& result, const LinkMatrixResult& matrix, std::optional<double> network_gbs) {
        for (const auto kind : link_kinds) {
            const auto& f = matrix.figures[static_cast<std::size_t>(kind)];
            if (!f.job_bandwidth_median_gbs || !f.my_bandwidth_min_gbs) continue;  // no link of this kind
            const auto name = [&](std::string_view quantity) {
                return fmt::format("allpairs.{}_{}", kind == LinkKind::intra_node ? "intra_node" : "inter_node", quantity);
            };
            const double median = *f.job_bandwidth_median_gbs;
            result.add_metric(name("bandwidth_min_gbs"), *f.my_bandwidth_min_gbs);
            if (f.my_bandwidth_max_gbs)
                result.add_metric(name("bandwidth_max_gbs"), *f.my_bandwidth_max_gbs,
                                  kind == LinkKind::inter_node ? network_gbs : std::nullopt);
            result.add_metric(name("bandwidth_median_gbs"), median);
            if (median > 0.0) {
                result.add_metric(name("min_over_median"), *f.my_bandwidth_min_gbs / median);
                result.add_metric(name("rank_median_over_median"), *f.my_bandwidth_median_gbs / median);
            }
            result.add_metric(name("latency_max_us"), *f.my_latency_max_us);
            result.add_metric(name("latency_median_us"), *f.job_latency_median_us);
        }
    }
};

}  // namespace

SHAKEDOWN_REGISTER_TEST(AllPairs);

}  // namespace shakedown::mpi
