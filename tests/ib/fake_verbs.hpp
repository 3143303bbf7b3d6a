// FakeVerbs: an in-process stand-in for libibverbs, for tests only. It simulates devices and
// ports (with GID tables and counters you set), a QP state machine that rejects illegal
// transitions, and delivers RDMA writes, reads and sends between QPs of the same process
// (two threads play the two ranks). Errors and counter changes are planted through it.
// It says it is a fake: implementation() is "fake (in-process)".
#pragma once

#include "ib/verbs/verbs_api.hpp"

#include <memory>
#include <string>
#include <vector>

namespace shakedown::ib::testing {

struct FakePort {
    PortInfo info;
    std::vector<GidEntry> gids;
    PortCounters counters;
};

struct FakeDevice {
    DeviceInfo info;
    std::vector<FakePort> ports;
};

// An HDR 4x InfiniBand HCA (200 Gb/s, 4096 B MTU, LID `lid`) with zeroed error counters.
FakeDevice fake_infiniband_device(const std::string& name, int numa_node, std::uint16_t lid);
// A 100 GbE RoCE port with a RoCE v1 GID at index 0 and a RoCE v2 GID at index 1.
FakeDevice fake_roce_device(const std::string& name, int numa_node);

// Operations a planted error can hit: "open", "register_memory", "register_dmabuf",
// "create_qp", "modify_qp", "post"; "completion" turns the next completion into a failure.
struct FakeFabric;

class FakeVerbs final : public VerbsApi {
public:
    explicit FakeVerbs(std::vector<FakeDevice> devices);
    ~FakeVerbs() override;

    std::string_view implementation() const override { return "fake (in-process)"; }
    std::vector<std::string> device_names() const override;
    std::unique_ptr<DeviceContext> open(const std::string& device) const override;
    PortCounters port_counters(const std::string& device, int port) const override;

    // Planting.
    void add_to_counter(const std::string& device, int port, const std::string& counter, std::uint64_t delta);
    void fail_next(const std::string& operation, const std::string& message);
    void corrupt_next_delivery();  // flips the first byte of the next write/read/send delivered: a bad link
    // Flips the first byte of delivery number `index` (counted from 0 over the fake's life, as
    // delivered_messages() counts them): a bad link at a chosen point of a sweep.
    void corrupt_delivery(std::size_t index);

    // What happened, for assertions.
    std::vector<std::string> qp_transitions() const;  // "qp 17: RESET -> INIT", ... including rejected ones
    std::size_t delivered_messages() const;
    // A hash of each delivered message's payload as its sender's memory held it, in delivery
    // order: equal hashes are the same payload sent again.
    std::vector<std::uint64_t> delivery_digests() const;

private:
    std::shared_ptr<FakeFabric> fabric_;
};

}  // namespace shakedown::ib::testing
