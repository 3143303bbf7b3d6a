// The timed loops of the RC sweep and of gpudirect_rdma's stream move one payload and never look
// at it; the validation pass after each catches a corrupting link. Shown per loop against
// FakeVerbs: which delivery carried which payload (its digest), a corruption planted by the
// sweep's own fault and one planted on the wire at a chosen delivery.
#include "fake_verbs.hpp"
#include "thread_pair.hpp"

#include "comm/payload.hpp"
#include "ib/gpudirect/rdma_stream.hpp"
#include "ib/pair/validation_pass.hpp"
#include "ib/verbs/rc_protocol.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <span>

namespace shakedown::ib::testing {
namespace {

enum class Loop { latency, one_way, both_ways };

std::string loop_name(Loop loop) {
    return loop == Loop::latency ? "latency" : loop == Loop::one_way ? "one-way bandwidth" : "bi-directional bandwidth";
}

// What the sweep's notes call the loop: "write latency", "send one-way bandwidth", ...
std::string what(Operation operation, Loop loop) { return fmt::format("{} {}", to_string(operation), loop_name(loop)); }

constexpr std::size_t message_bytes = 256;

SweepPlan one_size_plan(Operation operation) {
    SweepPlan plan;
    plan.sizes = {message_bytes};
    plan.operations = {operation};
    plan.latency_warmup = 2;
    plan.latency_iterations = 6;
    plan.bandwidth_warmup = 2;
    plan.bandwidth_iterations = 8;
    plan.queue_depth = 8;
    plan.timeout_s = 2.0;
    return plan;
}

// Where a loop's deliveries fall in a one-operation, one-size sweep: its timed messages, then its
// validation pass. Ping-pongs deliver both ways; a read round trip one message.
struct Segment {
    std::size_t first_timed = 0;
    std::size_t timed = 0;
    std::size_t validation = 0;
    std::size_t first_validation() const { return first_timed + timed; }
    std::size_t end() const { return first_validation() + validation; }
};

Segment segment_of(Operation operation, Loop loop, const SweepPlan& plan) {
    const auto validation = static_cast<std::size_t>(validation_messages(plan.queue_depth));
    const std::size_t latency_ways = operation == Operation::read ? 1 : 2;
    const Segment latency{0, latency_ways * static_cast<std::size_t>(plan.latency_warmup + plan.latency_iterations),
                          latency_ways * validation};
    const Segment one_way{latency.end(), static_cast<std::size_t>(plan.bandwidth_warmup + plan.bandwidth_iterations), validation};
    const Segment both_ways{one_way.end(), 2 * one_way.timed, 2 * validation};
    return loop == Loop::latency ? latency : loop == Loop::one_way ? one_way : both_ways;
}

using Sides = std::pair<SideOutcome<SweepOutcome>, SideOutcome<SweepOutcome>>;

FakeVerbs two_hcas() { return FakeVerbs({fake_infiniband_device("fake_ib0", 0, 1), fake_infiniband_device("fake_ib1", 1, 2)}); }

EndpointChoice choose(const VerbsApi& api, const std::string& device) { return resolve_endpoint(api, {device, 0, -1}, -1); }

Sides sweep_pair(FakeVerbs& fake, const SweepPlan& plan, PlantedFaults initiator_faults = {}, PlantedFaults responder_faults = {}) {
    const EndpointChoice choices[2] = {choose(fake, "fake_ib0"), choose(fake, "fake_ib1")};
    return run_both_sides<SweepOutcome>([&](PeerChannel& channel, int side) {
        RcEndpoint endpoint(fake, choices[side], plan.queue_depth);
        endpoint.use_host_buffer(sweep_buffer_bytes(plan));
        endpoint.connect(channel);
        return run_rc_sweep(endpoint, channel, side == 0, plan, side == 0 ? initiator_faults : responder_faults);
    });
}

// Every note either side made itself (the peer's summary line left out: it repeats one of them).
std::vector<std::string> own_notes(const Sides& sides) {
    std::vector<std::string> notes;
    for (const auto* side : {&sides.first, &sides.second})
        for (const auto& note : side->value->mismatches)
            if (note.rfind("peer saw: ", 0) != 0) notes.push_back(note);
    return notes;
}

bool has_note(const std::vector<std::string>& notes, const std::string& start) {
    return std::any_of(notes.begin(), notes.end(), [&](const std::string& n) { return n.rfind(start, 0) == 0; });
}

struct RcLoop {
    Operation operation;
    Loop loop;
};

class RcLoopValidation : public ::testing::TestWithParam<RcLoop> {};

// The sweep's planted fault corrupts the first payload of every validation pass on both sides:
// this loop's receiver names it as message 0 of its pass.
TEST_P(RcLoopValidation, PlantedCorruptionIsCaughtInTheValidationPass) {
    const auto [operation, loop] = GetParam();
    auto fake = two_hcas();
    const auto sides = sweep_pair(fake, one_size_plan(operation), PlantedFaults{true, 0.0}, PlantedFaults{true, 0.0});
    ASSERT_TRUE(sides.first.value) << sides.first.error;
    ASSERT_TRUE(sides.second.value) << sides.second.error;
    const auto notes = own_notes(sides);
    const auto expected = fmt::format("payload mismatch in {} {} B, message 0: byte 0 ", what(operation, loop), message_bytes);
    EXPECT_TRUE(has_note(notes, expected)) << expected << "\nnotes: " << fmt::format("{}", fmt::join(notes, "\n"));
}

// One flipped byte on the wire in the first message of this loop's validation pass is caught,
// and it is the only note of the sweep.
TEST_P(RcLoopValidation, ACorruptedValidationDeliveryIsCaught) {
    const auto [operation, loop] = GetParam();
    auto fake = two_hcas();
    const auto plan = one_size_plan(operation);
    fake.corrupt_delivery(segment_of(operation, loop, plan).first_validation());
    const auto sides = sweep_pair(fake, plan);
    ASSERT_TRUE(sides.first.value) << sides.first.error;
    ASSERT_TRUE(sides.second.value) << sides.second.error;
    const auto notes = own_notes(sides);
    ASSERT_EQ(notes.size(), 1u) << fmt::format("{}", fmt::join(notes, "\n"));
    EXPECT_TRUE(has_note(notes, fmt::format("payload mismatch in {} {} B, message 0: byte 0 ", what(operation, loop), message_bytes)))
        << notes.front();
}

// The timed loop sends one payload per direction, prepared before it, and checks none: a byte
// flipped on the wire in its middle goes unseen, no pattern is written or checked while it runs,
// and its messages carry no payload of the validation pass, whose messages each carry their own.
TEST_P(RcLoopValidation, TheTimedLoopSendsOnePayloadAndNeverLooksAtIt) {
    const auto [operation, loop] = GetParam();
    auto fake = two_hcas();
    const auto plan = one_size_plan(operation);
    const auto segment = segment_of(operation, loop, plan);
    fake.corrupt_delivery(segment.first_timed + segment.timed / 2);
    const auto sides = sweep_pair(fake, plan);
    ASSERT_TRUE(sides.first.value) << sides.first.error;
    ASSERT_TRUE(sides.second.value) << sides.second.error;
    EXPECT_TRUE(own_notes(sides).empty()) << own_notes(sides).front();
    EXPECT_EQ(sides.first.value->timed_payload_accesses, 0);
    EXPECT_EQ(sides.second.value->timed_payload_accesses, 0);

    const auto digests = fake.delivery_digests();
    ASSERT_EQ(digests.size(), segment_of(operation, Loop::both_ways, plan).end());
    const std::set<std::uint64_t> timed(digests.begin() + segment.first_timed, digests.begin() + segment.first_validation());
    const std::set<std::uint64_t> validated(digests.begin() + segment.first_validation(), digests.begin() + segment.end());
    const std::size_t directions = loop == Loop::one_way || operation == Operation::read && loop == Loop::latency ? 1 : 2;
    EXPECT_EQ(timed.size(), directions);
    EXPECT_EQ(validated.size(), segment.validation);
    for (const auto digest : timed) EXPECT_EQ(validated.count(digest), 0u);
}

// Each message of every validation pass is checked once, on the side where it lands.
TEST(RcValidation, EveryValidationMessageIsCheckedOnce) {
    for (const auto operation : {Operation::write, Operation::read, Operation::send}) {
        auto fake = two_hcas();
        const auto plan = one_size_plan(operation);
        const auto sides = sweep_pair(fake, plan);
        ASSERT_TRUE(sides.first.value) << sides.first.error;
        ASSERT_TRUE(sides.second.value) << sides.second.error;
        std::size_t expected = 0;
        for (const auto loop : {Loop::latency, Loop::one_way, Loop::both_ways}) expected += segment_of(operation, loop, plan).validation;
        EXPECT_EQ(static_cast<std::size_t>(sides.first.value->validated_messages + sides.second.value->validated_messages), expected)
            << to_string(operation);
    }
}

INSTANTIATE_TEST_SUITE_P(
    EveryLoop, RcLoopValidation,
    ::testing::Values(RcLoop{Operation::write, Loop::latency}, RcLoop{Operation::write, Loop::one_way},
                      RcLoop{Operation::write, Loop::both_ways}, RcLoop{Operation::read, Loop::latency},
                      RcLoop{Operation::read, Loop::one_way}, RcLoop{Operation::read, Loop::both_ways},
                      RcLoop{Operation::send, Loop::latency}, RcLoop{Operation::send, Loop::one_way},
                      RcLoop{Operation::send, Loop::both_ways}),
    [](const ::testing::TestParamInfo<RcLoop>& info) {
        const std::string loop = info.param.loop == Loop::latency ? "Latency" : info.param.loop == Loop::one_way ? "OneWay" : "BothWays";
        const std::string operation = info.param.operation == Operation::write ? "Write" : info.param.operation == Operation::read ? "Read" : "Send";
        return operation + loop;
    });

// gpudirect_rdma's stream on host memory: a StreamMemory that counts what it is asked to do and
// when (by how many messages the fake had delivered by then).
class CountingMemory final : public StreamMemory {
public:
    CountingMemory(std::byte* base, const FakeVerbs& fake) : base_(base), fake_(fake) {}

    void fill(std::size_t offset, std::size_t bytes, std::uint64_t seed, bool corrupt) override {
        note();
        ++fills;
        comm::fill_payload({base_ + offset, bytes}, seed);
        if (corrupt) base_[offset] = ~base_[offset];
    }
    void spoil(std::size_t offset, std::size_t bytes, std::uint64_t seed) override {
        note();
        ++spoils;
        comm::fill_payload({base_ + offset, bytes}, seed);
        for (std::size_t i = 0; i < bytes; ++i) base_[offset + i] = ~base_[offset + i];
    }
    std::optional<std::size_t> first_mismatch(std::size_t offset, std::size_t bytes, std::uint64_t seed) override {
        note();
        ++checks;
        return comm::first_mismatch(std::span<const std::byte>(base_ + offset, bytes), seed);
    }

    int fills = 0;
    int spoils = 0;
    int checks = 0;
    std::vector<std::size_t> delivered_at;  // the fake's delivery count at each call

private:
    void note() { delivered_at.push_back(fake_.delivered_messages()); }
    std::byte* base_;
    const FakeVerbs& fake_;
};

struct StreamSideResult {
    ValidatedStream stream;
    int fills = 0;
    int spoils = 0;
    int checks = 0;
    std::vector<std::size_t> delivered_at;
};

constexpr int stream_messages = 12;
constexpr int stream_depth = 8;

std::pair<SideOutcome<StreamSideResult>, SideOutcome<StreamSideResult>> stream_pair(FakeVerbs& fake, WorkKind kind, bool corrupt) {
    const EndpointChoice choices[2] = {choose(fake, "fake_ib0"), choose(fake, "fake_ib1")};
    return run_both_sides<StreamSideResult>([&](PeerChannel& channel, int side) {
        RcEndpoint endpoint(fake, choices[side], stream_depth);
        endpoint.use_host_buffer(2 * message_bytes);
        endpoint.connect(channel);
        CountingMemory memory(endpoint.host_bytes(), fake);
        StreamSetup setup;
        setup.kind = kind;
        setup.bytes = message_bytes;
        setup.messages = stream_messages;
        setup.depth = stream_depth;
        setup.timeout_s = 2.0;
        setup.landing_offset = 0;
        setup.source_offset = message_bytes;
        setup.corrupt = corrupt;
        StreamSideResult result{run_validated_stream(endpoint, channel, side == 0, memory, setup), memory.fills, memory.spoils,
                                memory.checks, memory.delivered_at};
        return result;
    });
}

class GpuStreamValidation : public ::testing::TestWithParam<WorkKind> {};

// The planted fault of the side that provides the data corrupts the first validation message:
// the side where it lands names it.
TEST_P(GpuStreamValidation, PlantedCorruptionIsCaughtInTheValidationPass) {
    const WorkKind kind = GetParam();
    auto fake = two_hcas();
    const auto [initiator, responder] = stream_pair(fake, kind, true);
    ASSERT_TRUE(initiator.value) << initiator.error;
    ASSERT_TRUE(responder.value) << responder.error;
    const auto& catcher = kind == WorkKind::rdma_write ? *responder.value : *initiator.value;
    ASSERT_EQ(catcher.stream.mismatches.size(), 1u);
    EXPECT_EQ(catcher.stream.mismatches.front(),
              fmt::format("payload mismatch after RDMA {} of {} B, message 0: byte 0", to_string(kind), message_bytes));
    EXPECT_EQ(catcher.stream.validated_messages, validation_messages(stream_depth));
    EXPECT_GT(initiator.value->stream.gbps, 0.0);
    EXPECT_EQ(initiator.value->stream.gbps, responder.value->stream.gbps);
}

// A byte flipped on the wire in the first validation message is caught; one flipped in the
// middle of the timed stream is not looked at.
TEST_P(GpuStreamValidation, OnlyTheValidationPassLooksAtTheData) {
    const WorkKind kind = GetParam();
    for (const int flipped : {stream_messages, stream_messages / 2}) {
        auto fake = two_hcas();
        fake.corrupt_delivery(static_cast<std::size_t>(flipped));
        const auto [initiator, responder] = stream_pair(fake, kind, false);
        ASSERT_TRUE(initiator.value) << initiator.error;
        ASSERT_TRUE(responder.value) << responder.error;
        const auto& catcher = kind == WorkKind::rdma_write ? *responder.value : *initiator.value;
        if (flipped == stream_messages) {
            ASSERT_EQ(catcher.stream.mismatches.size(), 1u);
            EXPECT_EQ(catcher.stream.mismatches.front(),
                      fmt::format("payload mismatch after RDMA {} of {} B, message 0: byte 0", to_string(kind), message_bytes));
        } else {
            EXPECT_TRUE(catcher.stream.mismatches.empty()) << catcher.stream.mismatches.front();
        }
    }
}

// The counting memory: the provider fills one payload before the timed stream and one per
// validation message, the receiver spoils and checks each validation message, and nothing is
// asked of the memory while the timed stream runs (between its first and its last delivery).
// The timed messages all carry the one payload; the validation messages each their own.
TEST_P(GpuStreamValidation, TheTimedStreamNeverTouchesThePayload) {
    const WorkKind kind = GetParam();
    auto fake = two_hcas();
    const auto [initiator, responder] = stream_pair(fake, kind, false);
    ASSERT_TRUE(initiator.value) << initiator.error;
    ASSERT_TRUE(responder.value) << responder.error;
    const auto& provider = kind == WorkKind::rdma_write ? *initiator.value : *responder.value;
    const auto& receiver = kind == WorkKind::rdma_write ? *responder.value : *initiator.value;
    const int validation = validation_messages(stream_depth);
    EXPECT_EQ(provider.fills, 1 + validation);
    EXPECT_EQ(provider.spoils + provider.checks, 0);
    EXPECT_EQ(receiver.fills, 0);
    EXPECT_EQ(receiver.spoils, validation);
    EXPECT_EQ(receiver.checks, validation);
    EXPECT_EQ(receiver.stream.validated_messages, validation);
    for (const auto* side : {&provider, &receiver})
        for (const auto at : side->delivered_at)
            EXPECT_TRUE(at == 0 || at >= static_cast<std::size_t>(stream_messages)) << "a payload access after " << at << " timed messages";
    const auto digests = fake.delivery_digests();
    ASSERT_EQ(digests.size(), static_cast<std::size_t>(stream_messages + validation));
    const std::set<std::uint64_t> timed(digests.begin(), digests.begin() + stream_messages);
    const std::set<std::uint64_t> validated(digests.begin() + stream_messages, digests.end());
    EXPECT_EQ(timed.size(), 1u);
    EXPECT_EQ(validated.size(), static_cast<std::size_t>(validation));
    EXPECT_EQ(validated.count(*timed.begin()), 0u);
}

INSTANTIATE_TEST_SUITE_P(WriteAndRead, GpuStreamValidation, ::testing::Values(WorkKind::rdma_write, WorkKind::rdma_read),
                         [](const ::testing::TestParamInfo<WorkKind>& info) {
                             return std::string(info.param == WorkKind::rdma_write ? "Write" : "Read");
                         });

}  // namespace
}  // namespace shakedown::ib::testing
