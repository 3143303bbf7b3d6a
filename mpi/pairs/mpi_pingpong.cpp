// mpi_pingpong: latency (half round trip) between the node-local rank pair and between node
// representatives in a ring, with every payload validated. The spine's proof that MPI works.
#include "comm/sizes.hpp"
#include "core/problem_list.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "mpi/pairs/pair_latency.hpp"
#include "mpi/specs.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace shakedown::mpi {
namespace {

class MpiPingPong final : public Test {
public:
    MpiPingPong() : Test(mpi_pingpong_spec()) {}

    TestResult run(const RunContext& ctx) const override {
        LatencySweepSpec spec;
        spec.sizes = comm::byte_sizes(ctx.params().integers("sizes"));
        spec.counts = comm::iteration_counts(ctx.params());
        spec.batch = static_cast<int>(ctx.params().integer("batch"));
        spec.delay_s = ctx.faults().delay_s();
        spec.corrupt = ctx.faults().corrupt();

        const comm::PairSweep pairs(ctx.comm(), ctx.session(), comm::local_then_ring_rounds);
        TestResult result;
        result.samples = latency_sample_table();
        const auto sweep = run_latency_sweep(ctx.comm(), pairs, spec, result.samples);
        result.parameters["pairs_run"] = pairs.description();

        const auto smallest = *std::min_element(spec.sizes.begin(), spec.sizes.end());
        add_latency_metrics(result, sweep, smallest, true, "latency");
        add_latency_metrics(result, sweep, smallest, false, "leader_latency");
        ProblemList mismatches("payload mismatches");
        for (const auto& mismatch : sweep.mismatches) mismatches.add(mismatch);
        mismatches.fail(result);
        return result;
    }

private:
    // The smallest size's median and p99 (the worst of this rank's pairs of that kind).
    static void add_latency_metrics(TestResult& result, const LatencySweep& sweep, std::size_t bytes, bool intra_node,
                                    const std::string& quantity) {
        const PairLatency* worst = nullptr;
        for (const auto& entry : sweep.mine)
            if (entry.bytes == bytes && entry.pair.intra_node == intra_node &&
                (worst == nullptr || entry.half_round_trip_us.median > worst->half_round_trip_us.median))
                worst = &entry;
        if (worst == nullptr) return;  // this rank had no pair of that kind (one rank per node, ...)
        result.add_metric(fmt::format("mpi_pingpong.{}_us", quantity), worst->half_round_trip_us.median);
        result.add_metric(fmt::format("mpi_pingpong.{}_p99_us", quantity), worst->half_round_trip_us.p99);
    }
};

}  // namespace

SHAKEDOWN_REGISTER_TEST(MpiPingPong);

}  // namespace shakedown::mpi
