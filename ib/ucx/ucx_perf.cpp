// ucx_perf: UCX (UCP) tag send/receive, put and get latency and bandwidth between rank pairs
// (the node-local pair and node neighbours in a ring, or the pairs named), worker addresses and
// remote keys traded over MPI, every payload checked, and the transports UCX chose recorded.
// UCX runs on InfiniBand, RoCE, TCP and shared memory, so this test runs anywhere.
#include "core/errors.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "ib/ucx/ucx_handles.hpp"
#include "ib/ucx/ucx_pair.hpp"
#include "comm/pairs.hpp"
#include "comm/sizes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>

namespace shakedown::ib::ucx {
namespace {

int bounded(const TestParams& params, const char* name, int least, int most) {
    return static_cast<int>(params.integer_between(name, least, most));
}

UcxPlan ucx_plan(const TestParams& params) {
    UcxPlan plan;
    if (params.integer("min_bytes") < 1) throw InputError("parameter 'min_bytes' must be at least 1");
    if (params.integer("max_bytes") > (std::int64_t{1} << 30)) throw InputError("parameter 'max_bytes' must be at most 1 GiB");
    plan.sizes = comm::size_sweep(params.integer("min_bytes"), params.integer("max_bytes"), params.integer("size_factor"));
    plan.latency_warmup = bounded(params, "latency_warmup", 0, 1'000'000);
    plan.latency_iterations = bounded(params, "latency_iterations", 1, 100'000'000);
    plan.bandwidth_iterations = bounded(params, "bw_iterations", 1, 100'000'000);
    plan.window = bounded(params, "window", 1, 65536);
    plan.timeout_s = params.real("timeout_s");
    if (plan.timeout_s <= 0) throw InputError("parameter 'timeout_s' must be positive");
    return plan;
}

class UcxPerf final : public Test {
public:
    std::string_view key() const override { return "ucx_perf"; }
    std::string_view description() const override {
        return "UCX tag/put/get latency and bandwidth between rank pairs, validated, with the transports UCX chose";
    }
    std::vector<std::string> suites() const override { return {"quick", "full", "pairwise"}; }
    double default_deadline_s() const override { return 600.0; }

    // Defaults sized for the quick suite (a few seconds for a pair on a busy 2-core machine);
    // the full suite's sweep to 8 MiB is a config away (docs/rdma.md).
    std::vector<ParamSpec> parameters() const override {
        return {
            {"min_bytes", ParamKind::integer, std::int64_t{8}, "smallest message size"},
            {"max_bytes", ParamKind::integer, std::int64_t{1} << 20, "largest message size"},
            {"size_factor", ParamKind::integer, std::int64_t{8}, "step between sizes"},
            {"latency_iterations", ParamKind::integer, std::int64_t{200}, "timed latency iterations per size"},
            {"latency_warmup", ParamKind::integer, std::int64_t{20}, "untimed latency iterations per size"},
            {"bw_iterations", ParamKind::integer, std::int64_t{64}, "messages in a bandwidth run"},
            {"window", ParamKind::integer, std::int64_t{16}, "requests in flight for bandwidth"},
            {"pairs", ParamKind::text, std::string(), "world-rank pairs such as \"0-1,2-3\"; empty: local pair and node ring"},
            {"timeout_s", ParamKind::real, 30.0, "longest wait for one operation before the peer is declared gone"},
        };
    }

    void check_parameters(const TestParams& params, int world_size) const override {
        ucx_plan(params);
        if (world_size < 2) throw InputError("ucx_perf needs at least 2 ranks");
    }

    std::optional<std::string> waiver(const RunContext& ctx) const override {
        if (ctx.session().world_size() < 2) return "needs at least 2 ranks";
        return std::nullopt;
    }

    TestResult run(const RunContext& ctx) const override {
        const auto plan = ucx_plan(ctx.params());
        const auto placement = comm::gather_placement(ctx.comm(), ctx.session());
        const auto& pairs = ctx.params().text("pairs");
        const auto rounds = pairs.empty() ? comm::local_then_ring_rounds(placement)
                                          : comm::parse_pair_list(pairs, placement, ctx.session().world_size());
        TestResult result;
        result.parameters["pairs_run"] = comm::describe_rounds(rounds, placement);
        result.parameters["ucx_version"] = ucp_get_version_string();
        result.samples = SampleTable({{"size", "B"},
                                      {"peer", "rank"},
                                      {"operation", "0=tag,1=put,2=get"},
                                      {"latency_min_us", "us"},
                                      {"latency_median_us", "us"},
                                      {"latency_average_us", "us"},
                                      {"latency_p99_us", "us"},
                                      {"latency_p99_9_us", "us"},
                                      {"bandwidth_gbs", "GB/s"},
                                      {"message_rate_mps", "Mmsg/s"}});
        std::vector<UcxFigures> mine;
        std::vector<std::string> transports;
        for (const auto& round : rounds) {
            if (const auto role = comm::role_in(round, ctx.rank())) {
                const auto world = [&](int rank) { return placement[rank].world_rank; };
                const auto label = fmt::format("ranks {}-{}", world(role->pair.first), world(role->pair.second));
                MpiPeerChannel channel(ctx.comm(), role->peer);
                const auto outcome = run_ucx_pair(channel, role->initiator, plan,
                                                  PlantedFaults{ctx.faults().corrupt(), ctx.faults().delay_s()});
                for (const auto& f : outcome.figures) {
                    mine.push_back(f);
                    result.samples.add_row({static_cast<double>(f.bytes), static_cast<double>(world(role->peer)),
                                            static_cast<double>(f.operation), f.latency_us.min, f.latency_us.median,
                                            f.latency_us.mean, f.latency_us.p99, f.latency_us.p99_9, f.bandwidth_gbs,
                                            f.message_rate_mps});
                }
                for (const auto& t : outcome.transports)
                    if (std::find(transports.begin(), transports.end(), t) == transports.end()) transports.push_back(t);
                result.parameters["endpoint " + label] = outcome.endpoint_info;
                for (const auto& mismatch : outcome.mismatches) result.fail(label + ": " + mismatch);
                if (outcome.transports.empty())
                    result.fail(label + ": UCX's endpoint description names no transport lane");
            }
            MPI_Barrier(ctx.comm());  // rounds never overlap
        }
        result.parameters["transports"] = fmt::format("{}", fmt::join(transports, ", "));
        add_metrics(result, mine);
        return result;
    }

private:
    static void add_metrics(TestResult& result, const std::vector<UcxFigures>& mine) {
        for (const auto operation : {UcxOperation::tag, UcxOperation::put, UcxOperation::get}) {
            std::vector<const UcxFigures*> of;
            for (const auto& f : mine)
                if (f.operation == operation) of.push_back(&f);
            if (of.empty()) continue;
            const auto [smallest, largest] = std::minmax_element(
                of.begin(), of.end(), [](const UcxFigures* a, const UcxFigures* b) { return a->bytes < b->bytes; });
            const auto worst = [&](std::size_t bytes, const std::function<double(const UcxFigures&)>& value, bool lower_better) {
                std::optional<double> found;
                for (const auto* f : of)
                    if (f->bytes == bytes && (!found || (lower_better ? value(*f) > *found : value(*f) < *found))) found = value(*f);
                return *found;
            };
            const auto name = [&](std::string_view quantity) { return fmt::format("ucx_perf.{}_{}", to_string(operation), quantity); };
            const std::size_t small = (*smallest)->bytes;
            const std::size_t large = (*largest)->bytes;
            result.add_metric(name("latency_us"), "us", worst(small, [](const UcxFigures& f) { return f.latency_us.median; }, true),
                              Better::lower);
            result.add_metric(name("latency_p99_us"), "us", worst(small, [](const UcxFigures& f) { return f.latency_us.p99; }, true),
                              Better::lower);
            result.add_metric(name("bandwidth_gbs"), "GB/s", worst(large, [](const UcxFigures& f) { return f.bandwidth_gbs; }, false),
                              Better::higher);
            result.add_metric(name("message_rate_mps"), "Mmsg/s",
                              worst(small, [](const UcxFigures& f) { return f.message_rate_mps; }, false), Better::higher);
        }
    }
};

}  // namespace

SHAKEDOWN_REGISTER_TEST(UcxPerf);

}  // namespace shakedown::ib::ucx
