// allpairs: latency and bandwidth of every ordered rank pair in N-1 ring-shift rounds, so the
// one slow link or slow node among hundreds stands out without N x N simultaneous traffic.
// Rank 0's samples hold the whole matrix; every rank reports the worst link it is part of
// against the job-wide median, intra-node and inter-node links kept apart.
#include "core/errors.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "mpi/link_matrix.hpp"
#include "mpi/ring_shift.hpp"

#include <fmt/format.h>

namespace shakedown::mpi {
namespace {

class AllPairs final : public Test {
public:
    std::string_view key() const override { return "allpairs"; }
    std::string_view description() const override {
        return "latency and bandwidth of every ordered rank pair by ring-shift rounds (link matrix), validated";
    }
    std::vector<std::string> suites() const override { return {"full", "pairwise"}; }
    double default_deadline_s() const override { return 1800.0; }

    std::vector<ParamSpec> parameters() const override {
        const ShiftSpec d;
        return {
            {"latency_bytes", ParamKind::integer, static_cast<std::int64_t>(d.latency_bytes), "latency message size"},
            {"latency_iterations", ParamKind::integer, std::int64_t{d.latency_iterations}, "timed ping-pongs per pair"},
            {"latency_warmup", ParamKind::integer, std::int64_t{d.latency_warmup}, "warm-up ping-pongs per pair"},
            {"bandwidth_bytes", ParamKind::integer, static_cast<std::int64_t>(d.bandwidth_bytes), "bandwidth message size"},
            {"bandwidth_window", ParamKind::integer, std::int64_t{d.bandwidth_window}, "messages in flight per iteration"},
            {"bandwidth_iterations", ParamKind::integer, std::int64_t{d.bandwidth_iterations}, "timed windows per pair"},
            {"bandwidth_warmup", ParamKind::integer, std::int64_t{d.bandwidth_warmup}, "warm-up windows per pair"},
        };
    }

    void check_parameters(const TestParams& params, int /*world_size*/) const override { (void)read_spec(params); }

    std::optional<std::string> waiver(const RunContext& ctx) const override {
        if (ctx.session().world_size() < 2) return "allpairs needs at least 2 ranks";
        return std::nullopt;
    }

    TestResult run(const RunContext& ctx) const override {
        ShiftSpec spec = read_spec(ctx.params());
        spec.delay_s = ctx.faults().delay_s();
        spec.corrupt = ctx.faults().corrupt();
        const auto placement = comm::gather_placement(ctx.comm(), ctx.session());
        RankMeasurements mine;
        std::vector<std::string> mismatches;
        for (int shift = 1; shift < ctx.size(); ++shift) {
            const auto round = measure_shift(ctx.comm(), shift, spec);
            mine.latency_to_us.push_back(round.latency_us);
            mine.bandwidth_from_gbs.push_back(round.bandwidth_gbs);
            if (round.mismatch) mismatches.push_back(*round.mismatch);
        }
        const auto matrix = gather_link_matrix(ctx.comm(), mine, placement);

        TestResult result;
        result.samples = SampleTable({{"src", "rank"},
                                      {"dst", "rank"},
                                      {"intra_node", "flag"},
                                      {"latency_us", "us"},
                                      {"bandwidth_gbs", "GB/s"}});
        for (const auto& link : matrix.links)
            result.samples.add_row({static_cast<double>(placement[link.src].world_rank),
                                    static_cast<double>(placement[link.dst].world_rank), link.intra_node ? 1.0 : 0.0,
                                    link.latency_us, link.bandwidth_gbs});
        if (!matrix.links.empty()) {
            const auto worst = worst_links_first(matrix.links).front();
            result.parameters["worst_link"] =
                fmt::format("{} -> {} ({}): {:.3f} GB/s, {:.2f} us", placement[worst.src].world_rank,
                            placement[worst.dst].world_rank, worst.intra_node ? "intra-node" : "inter-node",
                            worst.bandwidth_gbs, worst.latency_us);
        }
        add_metrics(result, matrix);
        if (!mismatches.empty())
            result.fail(mismatches.size() == 1
                            ? mismatches.front()
                            : fmt::format("{}; and {} more payload mismatches", mismatches.front(), mismatches.size() - 1));
        return result;
    }

private:
    // Every value checked; called from check_parameters too, so a bad one is the driver's exit 2.
    static ShiftSpec read_spec(const TestParams& p) {
        const auto read = [&](const char* name, std::int64_t least, std::int64_t most) {
            return p.integer_between(name, least, most);
        };
        constexpr std::int64_t max_message = std::int64_t{1} << 30;
        ShiftSpec spec;
        spec.latency_bytes = static_cast<std::size_t>(read("latency_bytes", 1, max_message));
        spec.latency_iterations = static_cast<int>(read("latency_iterations", 1, 1'000'000));
        spec.latency_warmup = static_cast<int>(read("latency_warmup", 0, 1'000'000));
        spec.bandwidth_bytes = static_cast<std::size_t>(read("bandwidth_bytes", 1, max_message));
        spec.bandwidth_window = static_cast<int>(read("bandwidth_window", 1, 1024));
        spec.bandwidth_iterations = static_cast<int>(read("bandwidth_iterations", 1, 1'000'000));
        spec.bandwidth_warmup = static_cast<int>(read("bandwidth_warmup", 0, 1'000'000));
        if (spec.bandwidth_bytes * static_cast<std::size_t>(spec.bandwidth_window) > (std::size_t{4} << 30))
            throw InputError("bandwidth_bytes x bandwidth_window must stay within 4 GiB of receive buffers");
        return spec;
    }

    static void add_metrics(TestResult& result, const LinkMatrixResult& matrix) {
        for (const auto kind : link_kinds) {
            const auto& f = matrix.figures[static_cast<std::size_t>(kind)];
            if (!f.job_bandwidth_median_gbs || !f.my_bandwidth_min_gbs) continue;  // no link of this kind
            const auto name = [&](std::string_view quantity) {
                return fmt::format("allpairs.{}_{}", kind == LinkKind::intra_node ? "intra_node" : "inter_node", quantity);
            };
            const double median = *f.job_bandwidth_median_gbs;
            result.add_metric(name("bandwidth_min_gbs"), "GB/s", *f.my_bandwidth_min_gbs, Better::higher);
            result.add_metric(name("bandwidth_median_gbs"), "GB/s", median, Better::higher);
            if (median > 0.0) {
                result.add_metric(name("min_over_median"), "ratio", *f.my_bandwidth_min_gbs / median, Better::higher);
                result.add_metric(name("rank_median_over_median"), "ratio", *f.my_bandwidth_median_gbs / median,
                                  Better::higher);
            }
            result.add_metric(name("latency_max_us"), "us", *f.my_latency_max_us, Better::lower);
            result.add_metric(name("latency_median_us"), "us", *f.job_latency_median_us, Better::lower);
        }
    }
};

}  // namespace

SHAKEDOWN_REGISTER_TEST(AllPairs);

}  // namespace shakedown::mpi
