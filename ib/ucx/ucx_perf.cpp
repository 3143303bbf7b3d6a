// ucx_perf: UCX (UCP) tag send/receive, put and get latency and bandwidth between rank pairs
// (the node-local pair and node neighbours in a ring, or the pairs named), worker addresses and
// remote keys traded over MPI, the transports UCX chose recorded. The timed loops move one
// payload and never touch it; an untimed validation pass after each checks a few messages of
// their own patterns on arrival (ucx_pair.hpp).
// UCX runs on InfiniBand, RoCE, TCP and shared memory, so this test runs anywhere.
#include "comm/pair_sweep.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "ib/ucx/ucx_handles.hpp"
#include "ib/specs.hpp"
#include "ib/ucx/ucx_pair.hpp"
#include "comm/pairs.hpp"
#include "comm/sizes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>

namespace shakedown::ib::ucx {
namespace {

UcxPlan ucx_plan(const TestParams& params) {
    UcxPlan plan;
    plan.sizes = comm::size_sweep(params.integer("min_bytes"), params.integer("max_bytes"), params.integer("size_factor"));
    const auto count = [&](const char* name) { return static_cast<int>(params.integer(name)); };
    plan.latency_warmup = count("latency_warmup");
    plan.latency_iterations = count("latency_iterations");
    plan.bandwidth_iterations = count("bw_iterations");
    plan.window = count("window");
    plan.timeout_s = params.real("timeout_s");
    return plan;
}

class UcxPerf final : public Test {
public:
    UcxPerf() : Test(ucx_perf_spec()) {}

    TestResult run(const RunContext& ctx) const override {
        const auto plan = ucx_plan(ctx.params());
        const comm::PairSweep pairs(ctx.comm(), ctx.session(), [&](const auto& placement) {
            return comm::pairs_or_default(ctx.params(), placement, ctx.session().world_size(), comm::local_then_ring_rounds);
        });
        TestResult result;
        result.parameters["pairs_run"] = pairs.description();
        result.parameters["ucx_version"] = ucp_get_version_string();
        result.samples = SampleTable(ucx_perf_spec().samples);
        std::vector<UcxFigures> mine;
        std::vector<std::string> transports;
        int validated = 0;
        pairs.for_each_turn([&](const comm::PairTurn& turn) {
            const auto label = turn.label();
            MpiPeerChannel channel(ctx.comm(), turn.peer);
            const auto outcome =
                run_ucx_pair(channel, turn.initiator, plan, PlantedFaults{ctx.faults().corrupt(), ctx.faults().delay_s()});
            for (const auto& f : outcome.figures) {
                mine.push_back(f);
                result.samples.add_row({static_cast<double>(f.bytes), static_cast<double>(turn.peer_world),
                                        static_cast<double>(f.operation), f.latency_us.min, f.latency_us.median,
                                        f.latency_us.mean, f.latency_us.p99, f.latency_us.p99_9, f.bandwidth_gbs,
                                        f.message_rate_mps});
            }
            for (const auto& t : outcome.transports)
                if (std::find(transports.begin(), transports.end(), t) == transports.end()) transports.push_back(t);
            result.parameters["endpoint " + label] = outcome.endpoint_info;
            for (const auto& mismatch : outcome.mismatches) result.fail(label + ": " + mismatch);
            validated += outcome.validated_messages;
            if (outcome.transports.empty()) result.fail(label + ": UCX's endpoint description names no transport lane");
        });
        result.parameters["validated_messages"] = std::to_string(validated);  // checked here, outside the timed loops
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
            result.add_metric(name("latency_us"), worst(small, [](const UcxFigures& f) { return f.latency_us.median; }, true));
            result.add_metric(name("latency_p99_us"), worst(small, [](const UcxFigures& f) { return f.latency_us.p99; }, true));
            result.add_metric(name("bandwidth_gbs"), worst(large, [](const UcxFigures& f) { return f.bandwidth_gbs; }, false));
            result.add_metric(name("message_rate_mps"),
                              worst(small, [](const UcxFigures& f) { return f.message_rate_mps; }, false));
        }
    }
};

}  // namespace

SHAKEDOWN_REGISTER_TEST(UcxPerf);

}  // namespace shakedown::ib::ucx
