// ib_perf: RC queue pairs between rank pairs (different nodes by default), connection data
// traded over MPI, then RDMA write, RDMA read and send/receive latency (min, median, average,
// p99, p99.9) and bandwidth with `queue_depth` requests in flight over a size sweep, one way
// and both ways, and the message rate. The timed loops move one payload and never touch it; an
// untimed validation pass after each checks a few messages of its own patterns on arrival
// (rc_protocol.hpp). Bandwidth is put beside the port's nominal rate; error counters of the
// port are compared before and after.
#include "comm/pair_sweep.hpp"
#include "comm/sizes.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "ib/inventory/hca_inventory.hpp"
#include "ib/rdma_waiver.hpp"
#include "ib/specs.hpp"
#include "ib/verbs/perf_report.hpp"
#include "ib/verbs/rdma_context.hpp"

#include <fmt/format.h>

namespace shakedown::ib {
namespace {

SweepPlan sweep_plan(const TestParams& params) {
    SweepPlan plan;
    plan.sizes = comm::size_sweep(params.integer("min_bytes"), params.integer("max_bytes"), 2);
    for (const std::string& name : params.names("operations"))
        plan.operations.push_back(name == "write" ? Operation::write : name == "read" ? Operation::read : Operation::send);
    const auto count = [&](const char* name) { return static_cast<int>(params.integer(name)); };
    plan.latency_warmup = count("latency_warmup");
    plan.latency_iterations = count("latency_iterations");
    plan.bandwidth_warmup = count("bw_warmup");
    plan.bandwidth_iterations = count("bw_iterations");
    plan.queue_depth = count("queue_depth");
    plan.bidirectional = params.flag("bidirectional");
    plan.timeout_s = params.real("timeout_s");
    return plan;
}

class IbPerf final : public Test {
public:
    IbPerf() : Test(ib_perf_spec()) {}

    // A named device, port or GID index is checked against this node's devices when it has any;
    // run() checks again on each node (nodes may differ).
    void check_on_node(const TestParams& params) const override { check_endpoint_on_this_node(params); }

    std::optional<std::string> waiver(const RunContext&) const override {
        return no_rdma_device_waiver(*make_system_verbs());
    }

    TestResult run(const RunContext& ctx) const override {
        const auto& params = ctx.params();
        const auto plan = sweep_plan(params);
        const auto api = make_system_verbs();
        const auto [choice, nominal] = resolve_rdma_endpoint(*api, ctx);

        const comm::PairSweep pairs = rdma_pair_sweep(ctx);

        TestResult result;
        result.samples = perf_sample_table();
        result.parameters["implementation"] = std::string(api->implementation());
        result.parameters["endpoint"] = fmt::format("{} port {} ({}), {}", choice.device, choice.port,
                                                    to_string(choice.port_info.link_layer), choice.reason);
        result.parameters["gid_index"] = choice.gid_index ? std::to_string(*choice.gid_index) : "none (LID routing)";
        result.parameters["port_rate_gbps"] = nominal ? fmt::format("{:g}", *nominal) : "unknown";
        if (pairs.empty()) {
            result.waive(no_inter_node_pair);
            return result;
        }
        result.parameters["pairs_run"] = pairs.description();
        if (choice.port_info.state != "ACTIVE")
            result.fail(fmt::format("{} port {} is {} ({})", choice.device, choice.port, choice.port_info.state,
                                    choice.port_info.physical_state));

        const auto counters_before = api->port_counters(choice.device, choice.port);
        std::vector<PairSweep> sweeps;
        int validated = 0;
        pairs.for_each_turn(
            [&, &choice = choice](const comm::PairTurn& turn) {  // named: clang 14 captures no structured binding
                MpiPeerChannel channel(ctx.comm(), turn.peer);
                if (auto sweep = measure_pair(*api, choice, channel, turn.initiator, plan, ctx, turn.label(), result)) {
                    sweep->peer_world_rank = turn.peer_world;
                    add_pair_samples(result.samples, *sweep);
                    for (const auto& mismatch : sweep->outcome.mismatches) result.fail(turn.label() + ": " + mismatch);
                    validated += sweep->outcome.validated_messages;
                    sweeps.push_back(std::move(*sweep));
                }
            });
        result.parameters["validated_messages"] = std::to_string(validated);  // checked here, outside the timed loops
        PortRecord port_record;
        port_record.device.name = choice.device;
        port_record.port.port = choice.port;
        port_record.counters = counters_before;
        for (const auto& change : error_counter_changes({port_record}, {api->port_counters(choice.device, choice.port)}))
            result.fail(fmt::format("{}: {} grew by {} during the measurement", change.port, change.counter,
                                    change.delta()));
        add_perf_metrics(result, sweeps, nominal);
        return result;
    }

private:
    // Sets up this side, agrees with the peer that both sides are ready (so a failure on one
    // side does not leave the other waiting), connects and sweeps. Failures fail the result.
    static std::optional<PairSweep> measure_pair(const VerbsApi& api, const EndpointChoice& choice, PeerChannel& channel,
                                                 bool initiator, const SweepPlan& plan, const RunContext& ctx,
                                                 const std::string& label, TestResult& result) {
        std::unique_ptr<RcEndpoint> endpoint;
        std::string setup_error;
        if (choice.port_info.state != "ACTIVE") {
            setup_error = "not measured: the port is not ACTIVE";  // waiting for time-outs would tell nothing more
        } else {
            try {
                endpoint = std::make_unique<RcEndpoint>(api, choice, plan.queue_depth);
                endpoint->use_host_buffer(sweep_buffer_bytes(plan));
            } catch (const VerbsError& error) {
                setup_error = error.what();
            }
        }
        const int peer_ready = channel.swap(setup_error.empty() ? 1 : 0);
        if (!setup_error.empty() || peer_ready == 0) {
            result.fail(fmt::format("{}: {}", label,
                                    setup_error.empty() ? "the peer could not set up its RC endpoint" : setup_error));
            return std::nullopt;
        }
        try {
            endpoint->connect(channel);
            return PairSweep{0, run_rc_sweep(*endpoint, channel, initiator, plan,
                                             PlantedFaults{ctx.faults().corrupt(), ctx.faults().delay_s()})};
        } catch (const VerbsError& error) {
            result.fail(fmt::format("{}: {}", label, error.what()));
            return std::nullopt;
        }
    }
};

}  // namespace

SHAKEDOWN_REGISTER_TEST(IbPerf);

}  // namespace shakedown::ib
