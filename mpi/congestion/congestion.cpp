// congestion: how much the fabric's latency and bandwidth suffer under load, GPCNeT's way. The
// measuring ranks run the random ring alone (baseline), then again while the congesting ranks
// run their congestors; the impact factor is congested over baseline (bandwidth: baseline over
// congested), so 1 is no impact and above 1 worse, job-wide and per node. The planted delay is
// slept in the congested phase only: a rank whose links degrade under load, which is what the
// test exists to find.
#include "comm/communicator_names.hpp"
#include "comm/congestion_ring_columns.hpp"
#include "comm/pairs.hpp"
#include "core/communicator.hpp"
#include "core/problem_list.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "mpi/congestion/congestion_figures.hpp"
#include "mpi/congestion/congestion_ring.hpp"
#include "mpi/congestion/congestion_roles.hpp"
#include "mpi/congestion/congestors.hpp"
#include "mpi/specs.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace shakedown::mpi {
namespace {

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
        const int measuring_leader =
            static_cast<int>(std::find(roles.congests.begin(), roles.congests.end(), false) - roles.congests.begin());

        RankFigures mine;
        ProblemList mismatches("payload mismatches");
        const RingSpec spec = read_spec(params);
        const int ring_count = static_cast<int>(params.integer("rings"));
        std::vector<RingPlace> places;
        if (!congests)
            for (const auto& ring :
                 random_rings(group.size(), static_cast<std::uint64_t>(params.integer("seed")), ring_count))
                places.push_back(ring_place(ring, group.rank(), world_of_measuring));
        // A planted corruption flips one message, in the first ring; a planted delay slows every ring.
        const auto measure = [&](int phase, const PhaseFaults& faults) {
            for (std::size_t k = 0; k < places.size(); ++k) {
                const PhaseFaults ring_faults{faults.delay_s, faults.corrupt && k == 0};
                PhaseFigures figures =
                    measure_ring_phase(group.get(), places[k], spec, phase, static_cast<int>(k), ring_faults);
                if (figures.mismatch) mismatches.add(*figures.mismatch);
                PhaseSummary& into = phase == 0 ? mine.rings[k].baseline : mine.rings[k].congested;
                into = {figures.latency_p50_us, figures.latency_p99_us, figures.bandwidth_gbs};
            }
        };
        ctx.session().activity().set_phase("baseline: the measuring ranks alone", {});
        MPI_Barrier(ctx.comm());
        if (!congests) {
            mine.measures = true;
            for (const RingPlace& place : places) mine.rings.push_back({place.previous_world, place.next_world, {}, {}});
            measure(0, {});
        }
        ctx.session().activity().set_phase("congested: the measuring ranks beside the congestors", {});
        MPI_Barrier(ctx.comm());
        if (!congests) {
            measure(1, {ctx.faults().delay_s(), ctx.faults().corrupt()});
            if (ctx.rank() == measuring_leader) stop_congestors(ctx.comm(), congestor_root);
        } else {
            const CongestorSpec load{params.names("congestors"), static_cast<std::size_t>(params.integer("alltoall_bytes")),
                                     static_cast<std::size_t>(params.integer("congestor_bytes")),
                                     static_cast<int>(params.integer("incast_targets"))};
            mine.congestor_rounds =
                static_cast<double>(run_congestors(group.get(), ctx.comm(), measuring_leader, load).rounds);
        }

        TestResult result;
        result.parameters[std::string(communicator_names::communicator_ranks)] = std::to_string(ctx.size());
        result.parameters[std::string(congestion_ring_columns::measuring_ranks)] = std::to_string(roles.measuring);
        result.parameters["roles"] = roles.describe();
        result.parameters["measuring"] = fmt::format("{}", congests ? "no: congesting" : "yes");
        add_congestion_figures(result, congestion_spec(), ctx.comm(), placement, mine, ring_count);
        mismatches.fail(result);
        return result;
    }

private:
    static RingSpec read_spec(const TestParams& p) {
        const auto count = [&](const char* name) { return static_cast<int>(p.integer(name)); };
        return RingSpec{static_cast<std::size_t>(p.integer("latency_bytes")),
                        count("latency_warmup"),
                        count("latency_iterations"),
                        static_cast<std::size_t>(p.integer("bandwidth_bytes")),
                        count("bandwidth_window"),
                        count("bandwidth_warmup"),
                        count("bandwidth_iterations")};
    }
};

}  // namespace

SHAKEDOWN_REGISTER_TEST(Congestion);

}  // namespace shakedown::mpi
