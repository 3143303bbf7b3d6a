// The verbs protocol against FakeVerbs (in-process, two threads for the two ranks): QP state
// machine, the RC sweep with validation, planted corruption and errors, statistics (each timed
// loop and its validation pass on its own: rc_validation_test.cpp).
#include "fake_verbs.hpp"
#include "thread_pair.hpp"

#include "ib/verbs/perf_report.hpp"
#include "ib/verbs/rc_protocol.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace shakedown::ib::testing {
namespace {

FakeVerbs two_hcas() { return FakeVerbs({fake_infiniband_device("fake_ib0", 0, 1), fake_infiniband_device("fake_ib1", 1, 2)}); }

EndpointChoice choose(const VerbsApi& api, const std::string& device) { return resolve_endpoint(api, {device, 0, -1}, -1); }

SweepPlan tiny_plan() {
    SweepPlan plan;
    plan.sizes = {2, 64, 4096};
    plan.latency_warmup = 2;
    plan.latency_iterations = 20;
    plan.bandwidth_warmup = 4;
    plan.bandwidth_iterations = 40;
    plan.queue_depth = 8;
    plan.timeout_s = 2.0;
    return plan;
}

using Sides = std::pair<SideOutcome<SweepOutcome>, SideOutcome<SweepOutcome>>;

Sides sweep_pair(FakeVerbs& fake, const SweepPlan& plan, PlantedFaults initiator_faults = {},
                 PlantedFaults responder_faults = {}) {
    const EndpointChoice choices[2] = {choose(fake, "fake_ib0"), choose(fake, "fake_ib1")};
    return run_both_sides<SweepOutcome>([&](PeerChannel& channel, int side) {
        RcEndpoint endpoint(fake, choices[side], plan.queue_depth);
        endpoint.use_host_buffer(sweep_buffer_bytes(plan));
        endpoint.connect(channel);
        return run_rc_sweep(endpoint, channel, side == 0, plan, side == 0 ? initiator_faults : responder_faults);
    });
}

TEST(FakeVerbs, SaysItIsAFake) { EXPECT_EQ(two_hcas().implementation(), "fake (in-process)"); }

TEST(FakeVerbs, QpStateMachineRejectsIllegalTransitions) {
    auto fake = two_hcas();
    auto context = fake.open("fake_ib0");
    auto pd = context->allocate_pd();
    auto cq = context->create_cq(4);
    auto qp = pd->create_rc_qp(*cq, *cq, {4, 4});
    ConnectionData peer;
    EXPECT_THROW(qp->to_ready_to_receive(peer, {}), VerbsError);  // RESET -> RTR skips INIT
    EXPECT_THROW(qp->to_ready_to_send(0), VerbsError);
    qp->to_init(1);
    EXPECT_THROW(qp->to_init(1), VerbsError);
    std::byte buffer[16];
    auto mr = pd->register_memory(buffer, sizeof buffer);
    WorkRequest write{WorkKind::rdma_write, 1, mr.get(), 0, 8, mr->address(), mr->rkey(), true};
    try {
        qp->post(write);
        FAIL() << "a write from INIT must be refused";
    } catch (const VerbsError& error) {
        EXPECT_NE(std::string(error.what()).find("not RTS"), std::string::npos) << error.what();
    }
    qp->to_ready_to_receive(peer, {1, std::nullopt, 4096});
    EXPECT_EQ(qp->state(), QpState::ready_to_receive);
    qp->to_ready_to_send(0);
    EXPECT_EQ(qp->state(), QpState::ready_to_send);
    const auto log = fake.qp_transitions();
    ASSERT_EQ(log.size(), 6u);
    EXPECT_NE(log[0].find("RESET -> RTR rejected"), std::string::npos) << log[0];
    EXPECT_NE(log[5].find("RTR -> RTS"), std::string::npos) << log[5];
}

TEST(FakeVerbs, WriteToAPeerThatIsGoneFailsTheCompletion) {
    auto fake = two_hcas();
    auto context = fake.open("fake_ib0");
    auto pd = context->allocate_pd();
    auto cq = context->create_cq(4);
    auto qp = pd->create_rc_qp(*cq, *cq, {4, 4});
    qp->to_init(1);
    ConnectionData nobody;
    nobody.qp_number = 999;
    qp->to_ready_to_receive(nobody, {1, std::nullopt, 1024});
    qp->to_ready_to_send(0);
    std::byte buffer[16];
    auto mr = pd->register_memory(buffer, sizeof buffer);
    qp->post({WorkKind::rdma_write, 7, mr.get(), 0, 8, 0, 0, true});
    std::vector<Completion> completions;
    ASSERT_EQ(cq->poll(completions, 4), 1u);
    EXPECT_FALSE(completions[0].ok);
    EXPECT_EQ(completions[0].error, "transport retry counter exceeded");
    EXPECT_EQ(qp->state(), QpState::error);
}

TEST(FakeVerbs, RcSweepMeasuresAndValidatesEveryOperation) {
    auto fake = two_hcas();
    const auto plan = tiny_plan();
    const auto [initiator, responder] = sweep_pair(fake, plan);
    ASSERT_TRUE(initiator.value) << initiator.error;
    ASSERT_TRUE(responder.value) << responder.error;
    const auto& figures = initiator.value->figures;
    ASSERT_EQ(figures.size(), 9u);  // 3 operations x 3 sizes
    EXPECT_TRUE(initiator.value->mismatches.empty()) << initiator.value->mismatches.front();
    EXPECT_TRUE(responder.value->mismatches.empty());
    EXPECT_EQ(initiator.value->timed_payload_accesses, 0);
    EXPECT_EQ(responder.value->timed_payload_accesses, 0);
    EXPECT_GT(initiator.value->validated_messages, 0);
    for (std::size_t i = 0; i < figures.size(); ++i) {
        const auto& f = figures[i];
        EXPECT_EQ(f.operation, static_cast<Operation>(i / 3));
        EXPECT_EQ(f.bytes, plan.sizes[i % 3]);
        EXPECT_GT(f.latency_us.min, 0.0);
        EXPECT_LE(f.latency_us.min, f.latency_us.median);
        EXPECT_LE(f.latency_us.median, f.latency_us.p99);
        EXPECT_LE(f.latency_us.p99, f.latency_us.p99_9);
        EXPECT_GT(f.bandwidth_gbps, 0.0);
        EXPECT_GT(f.bibandwidth_gbps, 0.0);
        EXPECT_GT(f.message_rate_mps, 0.0);
        // Both sides keep the initiator's figures.
        EXPECT_EQ(responder.value->figures[i].latency_us.median, f.latency_us.median);
    }
    // Every message moved through the fake: latency (warm-up + timed) and the streams, per operation and size.
    EXPECT_GE(fake.delivered_messages(), 3u * 3u * (22u + 2u * (44u + 44u)) / 2u);
}

TEST(FakeVerbs, PlantedCorruptionIsCaughtByTheReceiver) {
    auto fake = two_hcas();
    auto plan = tiny_plan();
    plan.sizes = {2, 1024};
    const auto [initiator, responder] = sweep_pair(fake, plan, PlantedFaults{true, 0.0});
    ASSERT_TRUE(responder.value) << responder.error;
    const auto& seen = responder.value->mismatches;
    ASSERT_FALSE(seen.empty());
    EXPECT_NE(seen.front().find("payload mismatch in write latency 2 B, message 0: byte 0"), std::string::npos) << seen.front();
    // The initiator hears of it too.
    ASSERT_TRUE(initiator.value) << initiator.error;
    ASSERT_FALSE(initiator.value->mismatches.empty());
    EXPECT_NE(initiator.value->mismatches.back().find("peer saw: payload mismatch"), std::string::npos);
    // The responder provides the read data: a corrupting responder is caught by the reader.
    const auto [reader, source] = sweep_pair(fake, plan, {}, PlantedFaults{true, 0.0});
    ASSERT_TRUE(reader.value) << reader.error;
    const auto found = std::find_if(reader.value->mismatches.begin(), reader.value->mismatches.end(),
                                    [](const std::string& m) { return m.find("read latency") != std::string::npos; });
    EXPECT_NE(found, reader.value->mismatches.end());
}

TEST(FakeVerbs, CorruptionOnTheWireIsCaught) {
    auto fake = two_hcas();
    auto plan = tiny_plan();
    plan.operations = {Operation::send};
    plan.sizes = {256};
    // The timed ping-pong (warm-up and timed messages, both ways) is not looked at; the first
    // message of its validation pass arrives with a flipped byte.
    fake.corrupt_delivery(2u * static_cast<std::size_t>(plan.latency_warmup + plan.latency_iterations));
    const auto [initiator, responder] = sweep_pair(fake, plan);
    ASSERT_TRUE(responder.value) << responder.error;
    ASSERT_EQ(responder.value->mismatches.size(), 1u);
    EXPECT_NE(responder.value->mismatches.front().find("send latency 256 B, message 0: byte 0"), std::string::npos)
        << responder.value->mismatches.front();
}

TEST(FakeVerbs, FailedCompletionIsReportedAndThePeerTimesOut) {
    auto fake = two_hcas();
    auto plan = tiny_plan();
    plan.timeout_s = 0.3;
    fake.fail_next("completion", "remote access error");
    const auto [initiator, responder] = sweep_pair(fake, plan);
    EXPECT_FALSE(initiator.value);
    EXPECT_NE(initiator.error.find("write latency completed with error: remote access error"), std::string::npos)
        << initiator.error;
    EXPECT_FALSE(responder.value);
    EXPECT_NE(responder.error.find("did not arrive within 0.3 s"), std::string::npos) << responder.error;
}

TEST(FakeVerbs, PlantedQpErrorStopsTheConnection) {
    auto fake = two_hcas();
    fake.fail_next("modify_qp", "ibv_modify_qp failed: Connection timed out");
    const auto plan = tiny_plan();
    const auto [initiator, responder] = sweep_pair(fake, plan);
    // The fault hits whichever side reaches ibv_modify_qp first (thread scheduling decides, and
    // under a loaded CI machine it is often the responder); the other side must not hang but fail
    // on the channel timeout. So: both fail, and exactly one carries the planted error.
    EXPECT_FALSE(initiator.value);
    EXPECT_FALSE(responder.value);
    const auto carries_planted = [](const auto& side) {
        return side.error.find("Connection timed out") != std::string::npos;
    };
    EXPECT_NE(carries_planted(initiator), carries_planted(responder))
        << "initiator: " << initiator.error << "\nresponder: " << responder.error;
}

TEST(FakeVerbs, RoceConnectsOverARoceV2Gid) {
    FakeVerbs fake({fake_roce_device("fake_roce0", 0), fake_roce_device("fake_roce1", 0)});
    const auto choice = choose(fake, "fake_roce0");
    ASSERT_TRUE(choice.gid_index);
    EXPECT_EQ(*choice.gid_index, 1);  // the RoCE v2 entry
    auto plan = tiny_plan();
    plan.sizes = {8};
    const EndpointChoice choices[2] = {choice, choose(fake, "fake_roce1")};
    const auto [a, b] = run_both_sides<SweepOutcome>([&](PeerChannel& channel, int side) {
        RcEndpoint endpoint(fake, choices[side], plan.queue_depth);
        endpoint.use_host_buffer(sweep_buffer_bytes(plan));
        endpoint.connect(channel);
        return run_rc_sweep(endpoint, channel, side == 0, plan, {});
    });
    ASSERT_TRUE(a.value) << a.error;
    EXPECT_TRUE(a.value->mismatches.empty());
    // Without a GID a RoCE QP cannot reach RTR.
    auto no_gid = choice;
    no_gid.gid_index.reset();
    const auto [c, d] = run_both_sides<int>([&](PeerChannel& channel, int side) {
        RcEndpoint endpoint(fake, side == 0 ? no_gid : choices[1], 4);
        endpoint.use_host_buffer(64);
        endpoint.connect(channel);
        return 0;
    });
    EXPECT_NE(c.error.find("RoCE needs a GID index"), std::string::npos) << c.error;
}

TEST(FakeVerbs, MetricsPutBandwidthBesideThePortRate) {
    auto fake = two_hcas();
    auto plan = tiny_plan();
    plan.operations = {Operation::write};
    const auto [initiator, responder] = sweep_pair(fake, plan);
    ASSERT_TRUE(initiator.value) << initiator.error;
    TestResult result;
    result.samples = perf_sample_table();
    const PairSweep sweep{1, *initiator.value};
    add_pair_samples(result.samples, sweep);
    add_perf_metrics(result, {sweep}, 200.0);
    EXPECT_EQ(result.samples.size(), 3u);
    const auto find = [&](const std::string& name) {
        return std::find_if(result.metrics.begin(), result.metrics.end(), [&](const Metric& m) { return m.name == name; });
    };
    ASSERT_NE(find("ib_perf.write_bandwidth_gbps"), result.metrics.end());
    EXPECT_EQ(find("ib_perf.write_bandwidth_gbps")->nominal, 200.0);
    EXPECT_EQ(find("ib_perf.write_bibandwidth_gbps")->nominal, 400.0);
    EXPECT_EQ(find("ib_perf.write_latency_us")->value, initiator.value->figures.front().latency_us.median);
    EXPECT_EQ(find("ib_perf.read_latency_us"), result.metrics.end());  // not measured
    EXPECT_EQ(result.metrics.size(), 6u);
}

}  // namespace
}  // namespace shakedown::ib::testing
