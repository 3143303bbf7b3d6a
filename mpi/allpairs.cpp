// allpairs: latency and bandwidth of every ordered rank pair in N-1 ring-shift rounds, so the
// one slow link or slow node among hundreds stands out without N x N simultaneous traffic.
// Rank 0's samples hold the whole matrix; every rank reports the worst link it is part of
// against the job-wide median, intra-node and inter-node links kept apart.
#include "comm/link_matrix_columns.hpp"
#include "core/problem_list.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "hardware/network_capacity.hpp"
#include "mpi/link_matrix.hpp"
#include "mpi/specs.hpp"
#include "mpi/ring_shift.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>

namespace shakedown::mpi {
namespace {

class AllPairs final : public Test {
public:
    AllPairs() : Test(allpairs_spec()) {}

    TestResult run(const RunContext& ctx) const override {
        ShiftSpec spec = read_spec(ctx.params());
        spec.delay_s = ctx.faults().delay_s();
        spec.corrupt = ctx.faults().corrupt();
        const auto placement = comm::gather_placement(ctx.comm(), ctx.session());
        const int rounds = static_cast<int>(ctx.params().integer("rounds"));
        ProblemList mismatches("payload mismatches");
        TestResult result;
        result.samples = SampleTable(link_matrix_columns::columns());
        // Per shift, every round's figures: the matrix gets one row per round, the rank's own
        // figures come from the median over the rounds.
        std::vector<std::vector<double>> latency_rounds(static_cast<std::size_t>(ctx.size() - 1));
        std::vector<std::vector<double>> bandwidth_rounds(latency_rounds.size());
        for (int repeat = 1; repeat <= rounds; ++repeat) {
            RankMeasurements mine;
            for (int shift = 1; shift < ctx.size(); ++shift) {
                const int to = placement[static_cast<std::size_t>((ctx.rank() + shift) % ctx.size())].world_rank;
                const int from = placement[static_cast<std::size_t>((ctx.rank() - shift + ctx.size()) % ctx.size())].world_rank;
                ctx.session().activity().set_phase(fmt::format("round {} of {}, shift {} of {}: to rank {}, from rank {}",
                                                               repeat, rounds, shift, ctx.size() - 1, to, from),
                                                   {to, from});
                const auto round = measure_shift(ctx.comm(), shift, spec);
                mine.latency_to_us.push_back(round.latency_us);
                mine.bandwidth_to_gbs.push_back(round.bandwidth_gbs);
                latency_rounds[static_cast<std::size_t>(shift - 1)].push_back(round.latency_us);
                bandwidth_rounds[static_cast<std::size_t>(shift - 1)].push_back(round.bandwidth_gbs);
                if (round.mismatch) mismatches.add(*round.mismatch);
            }
            for (const auto& link : gather_link_matrix(ctx.comm(), mine, placement).links)
                result.samples.add_row({static_cast<double>(placement[link.src].world_rank),
                                        static_cast<double>(placement[link.dst].world_rank), link.intra_node ? 1.0 : 0.0,
                                        link.latency_us, link.bandwidth_gbs});
        }
        RankMeasurements typical;
        for (std::size_t shift = 0; shift < latency_rounds.size(); ++shift) {
            typical.latency_to_us.push_back(stats::median(latency_rounds[shift]));
            typical.bandwidth_to_gbs.push_back(stats::median(bandwidth_rounds[shift]));
        }
        const auto matrix = gather_link_matrix(ctx.comm(), typical, placement);
        if (!matrix.links.empty()) {
            const auto worst = worst_links_first(matrix.links).front();
            result.parameters["worst_link"] =
                fmt::format("{} -> {} ({}): {:.3f} GB/s, {:.2f} us", placement[worst.src].world_rank,
                            placement[worst.dst].world_rank, worst.intra_node ? "intra-node" : "inter-node",
                            worst.bandwidth_gbs, worst.latency_us);
        }
        add_metrics(result, matrix, hardware::network_capacity_gbs(ctx.inventory()));
        mismatches.fail(result);
        return result;
    }

private:
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
