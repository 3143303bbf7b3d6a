#include "fake_verbs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <optional>

namespace shakedown::ib::testing {

class FakeQp;
class FakeMr;

// Everything the fake objects share, behind one mutex: the two "ranks" are two threads.
struct FakeFabric {
    std::mutex mutex;
    std::vector<FakeDevice> devices;
    std::map<std::string, std::string> planted_failures;  // operation -> message
    bool corrupt_next = false;
    std::optional<std::size_t> corrupt_index;
    std::vector<std::uint64_t> digests;
    std::vector<std::string> transitions;
    std::size_t delivered = 0;
    std::uint32_t next_id = 17;

    // Counts a delivery of `bytes` from `source`; says whether to corrupt it. Caller holds the mutex.
    bool record_delivery(const std::byte* source, std::size_t bytes) {
        std::uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a
        for (std::size_t i = 0; i < bytes; ++i) hash = (hash ^ static_cast<std::uint64_t>(source[i])) * 0x100000001b3ULL;
        digests.push_back(hash);
        const bool corrupt = corrupt_next || corrupt_index == delivered;
        corrupt_next = false;
        if (corrupt_index == delivered) corrupt_index.reset();
        ++delivered;
        return corrupt;
    }
    std::map<std::uint32_t, FakeQp*> qps;
    std::map<std::uint32_t, FakeMr*> regions_by_rkey;

    // Throws the planted failure for `operation`, once. Caller holds the mutex.
    void maybe_fail(const std::string& operation) {
        const auto found = planted_failures.find(operation);
        if (found == planted_failures.end()) return;
        const auto message = found->second;
        planted_failures.erase(found);
        throw VerbsError(message);
    }

    FakePort* port(const std::string& device, int port) {
        for (auto& d : devices)
            if (d.info.name == device && port >= 1 && port <= static_cast<int>(d.ports.size())) return &d.ports[port - 1];
        return nullptr;
    }
};

namespace {

using Lock = std::lock_guard<std::mutex>;

// Copies a message the way the tests' arrival detection expects an HCA to: the last byte
// lands last and is published with release order (pollers read it with acquire).
void deliver(std::byte* destination, const std::byte* source, std::size_t bytes, bool corrupt) {
    if (bytes == 0) return;
    std::memcpy(destination, source, bytes - 1);
    if (corrupt) destination[0] = ~destination[0];
    std::atomic_ref<unsigned char>(reinterpret_cast<unsigned char&>(destination[bytes - 1]))
        .store(static_cast<unsigned char>(source[bytes - 1]), std::memory_order_release);
}

}  // namespace

class FakeMr final : public MemoryRegion {
public:
    FakeMr(std::shared_ptr<FakeFabric> fabric, void* address, std::size_t length)
        : fabric_(std::move(fabric)), address_(reinterpret_cast<std::uint64_t>(address)), length_(length),
          key_(fabric_->next_id++) {
        fabric_->regions_by_rkey[key_] = this;
    }
    ~FakeMr() override {
        const Lock lock(fabric_->mutex);
        fabric_->regions_by_rkey.erase(key_);
    }
    std::uint64_t address() const override { return address_; }
    std::size_t length() const override { return length_; }
    std::uint32_t lkey() const override { return key_; }
    std::uint32_t rkey() const override { return key_; }
    bool covers(std::uint64_t address, std::size_t bytes) const {
        return address >= address_ && address + bytes <= address_ + length_;
    }

private:
    std::shared_ptr<FakeFabric> fabric_;
    std::uint64_t address_;
    std::size_t length_;
    std::uint32_t key_;
};

class FakeCq final : public CompletionQueue {
public:
    explicit FakeCq(std::shared_ptr<FakeFabric> fabric) : fabric_(std::move(fabric)) {}
    std::size_t poll(std::vector<Completion>& out, std::size_t max) override {
        const Lock lock(fabric_->mutex);
        std::size_t taken = 0;
        while (taken < max && !entries_.empty()) {
            out.push_back(std::move(entries_.front()));
            entries_.pop_front();
            ++taken;
        }
        return taken;
    }
    void push(Completion completion) { entries_.push_back(std::move(completion)); }  // mutex held

private:
    std::shared_ptr<FakeFabric> fabric_;
    std::deque<Completion> entries_;
};

class FakeQp final : public QueuePair {
public:
    FakeQp(std::shared_ptr<FakeFabric> fabric, std::string device, FakeCq& send_cq, FakeCq& receive_cq)
        : fabric_(std::move(fabric)), device_(std::move(device)), send_cq_(send_cq), receive_cq_(receive_cq),
          number_(fabric_->next_id++) {
        fabric_->qps[number_] = this;
    }
    ~FakeQp() override {
        const Lock lock(fabric_->mutex);
        fabric_->qps.erase(number_);
    }

    std::uint32_t number() const override { return number_; }
    QpState state() const override {
        const Lock lock(fabric_->mutex);
        return state_;
    }

    void to_init(int port) override {
        const Lock lock(fabric_->mutex);
        transition(QpState::reset, QpState::init);
        if (fabric_->port(device_, port) == nullptr) {
            state_ = QpState::reset;
            throw VerbsError(fmt::format("ibv_modify_qp RESET -> INIT failed: {} has no port {}", device_, port));
        }
        port_ = port;
    }

    void to_ready_to_receive(const ConnectionData& peer, const PathSettings& path) override {
        const Lock lock(fabric_->mutex);
        const FakePort* port = fabric_->port(device_, port_);
        if (state_ == QpState::init) {
            if (port->info.link_layer == LinkLayer::ethernet && !path.gid_index)
                throw VerbsError("ibv_modify_qp INIT -> RTR failed: Invalid argument (RoCE needs a GID index)");
            if (path.gid_index && std::none_of(port->gids.begin(), port->gids.end(),
                                               [&](const GidEntry& e) { return e.index == *path.gid_index; }))
                throw VerbsError(fmt::format("ibv_modify_qp INIT -> RTR failed: Invalid argument (no GID {})", *path.gid_index));
            if (path.mtu_bytes > port->info.active_mtu_bytes)
                throw VerbsError(fmt::format("ibv_modify_qp INIT -> RTR failed: path MTU {} above the port's {}",
                                             path.mtu_bytes, port->info.active_mtu_bytes));
        }
        transition(QpState::init, QpState::ready_to_receive);
        remote_qp_ = peer.qp_number;
    }

    void to_ready_to_send(std::uint32_t) override {
        const Lock lock(fabric_->mutex);
        transition(QpState::ready_to_receive, QpState::ready_to_send);
    }

    void post(const WorkRequest& request) override {
        const Lock lock(fabric_->mutex);
        fabric_->maybe_fail("post");
        if (request.local == nullptr || request.local_offset + request.length > request.local->length())
            throw VerbsError("ibv_post: local buffer outside its memory region");
        std::byte* local = reinterpret_cast<std::byte*>(request.local->address()) + request.local_offset;
        if (request.kind == WorkKind::receive) {
            if (state_ == QpState::reset || state_ == QpState::error)
                throw VerbsError(fmt::format("ibv_post_recv failed: QP {} is in state {}", number_, to_string(state_)));
            receives_.push_back(request);
            take_pending_send();
            return;
        }
        if (state_ != QpState::ready_to_send)
            throw VerbsError(fmt::format("ibv_post_send failed: QP {} is in state {}, not RTS", number_, to_string(state_)));
        Completion completion{request.id, request.kind, true, {}, request.length};
        const auto peer = fabric_->qps.find(remote_qp_);
        if (peer == fabric_->qps.end() || (peer->second->state_ != QpState::ready_to_receive &&
                                           peer->second->state_ != QpState::ready_to_send)) {
            fail(completion, "transport retry counter exceeded");
        } else if (request.kind == WorkKind::send) {
            peer->second->pending_sends_.emplace_back(local, local + request.length);
            peer->second->take_pending_send();
        } else {
            const auto target = fabric_->regions_by_rkey.find(request.rkey);
            if (target == fabric_->regions_by_rkey.end() || !target->second->covers(request.remote_address, request.length)) {
                fail(completion, "remote access error");
            } else {
                auto* remote = reinterpret_cast<std::byte*>(request.remote_address);
                if (request.kind == WorkKind::rdma_write)
                    deliver(remote, local, request.length, fabric_->record_delivery(local, request.length));
                else
                    deliver(local, remote, request.length, fabric_->record_delivery(remote, request.length));
            }
        }
        if (completion.ok) try {
                fabric_->maybe_fail("completion");
            } catch (const VerbsError& planted) {
                completion.ok = false;
                completion.error = planted.what();
            }
        if (request.signaled || !completion.ok) send_cq_.push(std::move(completion));
    }

private:
    void transition(QpState from, QpState to) {
        const auto line = fmt::format("qp {}: {} -> {}", number_, to_string(state_), to_string(to));
        if (state_ != from) {
            fabric_->transitions.push_back(line + " rejected");
            throw VerbsError(fmt::format("ibv_modify_qp {} -> {} failed: not a legal transition (RESET -> INIT -> RTR -> RTS)",
                                         to_string(state_), to_string(to)));
        }
        fabric_->maybe_fail("modify_qp");
        fabric_->transitions.push_back(line);
        state_ = to;
    }

    void fail(Completion& completion, const char* why) {
        completion.ok = false;
        completion.error = why;
        state_ = QpState::error;
    }

    // Matches a waiting inbound send with a posted receive (mutex held).
    void take_pending_send() {
        while (!pending_sends_.empty() && !receives_.empty()) {
            const auto message = std::move(pending_sends_.front());
            pending_sends_.pop_front();
            const WorkRequest receive = receives_.front();
            receives_.pop_front();
            Completion completion{receive.id, WorkKind::receive, true, {}, message.size()};
            if (message.size() > receive.length) {
                completion.ok = false;
                completion.error = "local length error";
            } else {
                auto* destination = reinterpret_cast<std::byte*>(receive.local->address()) + receive.local_offset;
                deliver(destination, message.data(), message.size(), fabric_->record_delivery(message.data(), message.size()));
            }
            receive_cq_.push(std::move(completion));
        }
    }

    std::shared_ptr<FakeFabric> fabric_;
    std::string device_;
    FakeCq& send_cq_;
    FakeCq& receive_cq_;
    std::uint32_t number_;
    QpState state_ = QpState::reset;
    int port_ = 0;
    std::uint32_t remote_qp_ = 0;
    std::deque<WorkRequest> receives_;
    std::deque<std::vector<std::byte>> pending_sends_;
};

namespace {

class FakePd final : public ProtectionDomain {
public:
    FakePd(std::shared_ptr<FakeFabric> fabric, std::string device) : fabric_(std::move(fabric)), device_(std::move(device)) {}

    std::unique_ptr<MemoryRegion> register_memory(void* address, std::size_t length) override {
        const Lock lock(fabric_->mutex);
        fabric_->maybe_fail("register_memory");
        return std::make_unique<FakeMr>(fabric_, address, length);
    }
    std::unique_ptr<MemoryRegion> register_dmabuf(int, std::uint64_t, std::size_t, std::uint64_t) override {
        const Lock lock(fabric_->mutex);
        fabric_->maybe_fail("register_dmabuf");
        throw VerbsError("ibv_reg_dmabuf_mr failed: Operation not supported (the fake has no dma-buf)");
    }
    std::unique_ptr<QueuePair> create_rc_qp(CompletionQueue& send_cq, CompletionQueue& receive_cq, QpCapacity) override {
        const Lock lock(fabric_->mutex);
        fabric_->maybe_fail("create_qp");
        return std::make_unique<FakeQp>(fabric_, device_, dynamic_cast<FakeCq&>(send_cq), dynamic_cast<FakeCq&>(receive_cq));
    }

private:
    std::shared_ptr<FakeFabric> fabric_;
    std::string device_;
};

class FakeContext final : public DeviceContext {
public:
    FakeContext(std::shared_ptr<FakeFabric> fabric, DeviceInfo info) : fabric_(std::move(fabric)), info_(std::move(info)) {}

    const DeviceInfo& info() const override { return info_; }
    PortInfo query_port(int port) const override {
        const Lock lock(fabric_->mutex);
        const FakePort* found = fabric_->port(info_.name, port);
        if (found == nullptr) throw VerbsError(fmt::format("ibv_query_port({} port {}) failed: Invalid argument", info_.name, port));
        return found->info;
    }
    std::vector<GidEntry> gid_table(int port) const override {
        const Lock lock(fabric_->mutex);
        const FakePort* found = fabric_->port(info_.name, port);
        return found == nullptr ? std::vector<GidEntry>{} : found->gids;
    }
    std::unique_ptr<ProtectionDomain> allocate_pd() override { return std::make_unique<FakePd>(fabric_, info_.name); }
    std::unique_ptr<CompletionQueue> create_cq(int) override { return std::make_unique<FakeCq>(fabric_); }

private:
    std::shared_ptr<FakeFabric> fabric_;
    DeviceInfo info_;
};

}  // namespace

FakeDevice fake_infiniband_device(const std::string& name, int numa_node, std::uint16_t lid) {
    FakeDevice device;
    device.info = {name, "20.99.1000", "0002c90300a1b2c3", 1, numa_node, fmt::format("0000:{:02x}:00.0", 0x17 + lid)};
    FakePort port;
    port.info.port = 1;
    port.info.state = "ACTIVE";
    port.info.physical_state = "LinkUp";
    port.info.speed_code = 64;  // HDR
    port.info.width_code = 2;   // 4x
    port.info.active_mtu_bytes = 4096;
    port.info.max_mtu_bytes = 4096;
    port.info.link_layer = LinkLayer::infiniband;
    port.info.lid = lid;
    port.info.gid_table_length = 128;
    GidEntry gid;
    gid.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0x00, 0xa1, 0xb2, static_cast<std::uint8_t>(lid)};
    gid.type = "IB/RoCE v1";
    port.gids = {gid};
    for (const char* counter : {"symbol_error", "link_downed", "link_error_recovery", "port_rcv_errors",
                                "port_xmit_discards", "port_rcv_remote_physical_errors", "local_link_integrity_errors",
                                "excessive_buffer_overrun_errors", "port_xmit_data", "port_rcv_data"})
        port.counters[counter] = 0;
    device.ports = {port};
    return device;
}

FakeDevice fake_roce_device(const std::string& name, int numa_node) {
    FakeDevice device = fake_infiniband_device(name, numa_node, 0);
    auto& port = device.ports.front();
    port.info.speed_code = 32;  // 100 GbE as mlx5 reports it: EDR speed code, 4x width
    port.info.width_code = 2;
    port.info.active_mtu_bytes = 1024;
    port.info.link_layer = LinkLayer::ethernet;
    GidEntry v1;
    v1.index = 0;
    v1.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x42, 0xac, 0xff, 0xfe, 0x11, 0x00, 0x02};
    v1.type = "IB/RoCE v1";
    v1.netdev = "eth0";
    GidEntry v2 = v1;
    v2.index = 1;
    v2.type = "RoCE v2";
    port.gids = {v1, v2};
    return device;
}

FakeVerbs::FakeVerbs(std::vector<FakeDevice> devices) : fabric_(std::make_shared<FakeFabric>()) {
    fabric_->devices = std::move(devices);
}
FakeVerbs::~FakeVerbs() = default;

std::vector<std::string> FakeVerbs::device_names() const {
    const Lock lock(fabric_->mutex);
    std::vector<std::string> names;
    for (const auto& device : fabric_->devices) names.push_back(device.info.name);
    return names;
}

std::unique_ptr<DeviceContext> FakeVerbs::open(const std::string& device) const {
    const Lock lock(fabric_->mutex);
    fabric_->maybe_fail("open");
    for (const auto& d : fabric_->devices)
        if (d.info.name == device) return std::make_unique<FakeContext>(fabric_, d.info);
    throw VerbsError(fmt::format("no RDMA device named '{}'", device));
}

PortCounters FakeVerbs::port_counters(const std::string& device, int port) const {
    const Lock lock(fabric_->mutex);
    const FakePort* found = fabric_->port(device, port);
    return found == nullptr ? PortCounters{} : found->counters;
}

void FakeVerbs::add_to_counter(const std::string& device, int port, const std::string& counter, std::uint64_t delta) {
    const Lock lock(fabric_->mutex);
    if (FakePort* found = fabric_->port(device, port)) found->counters[counter] += delta;
}

void FakeVerbs::fail_next(const std::string& operation, const std::string& message) {
    const Lock lock(fabric_->mutex);
    fabric_->planted_failures[operation] = message;
}

void FakeVerbs::corrupt_next_delivery() {
    const Lock lock(fabric_->mutex);
    fabric_->corrupt_next = true;
}

void FakeVerbs::corrupt_delivery(std::size_t index) {
    const Lock lock(fabric_->mutex);
    fabric_->corrupt_index = index;
}

std::vector<std::uint64_t> FakeVerbs::delivery_digests() const {
    const Lock lock(fabric_->mutex);
    return fabric_->digests;
}

std::vector<std::string> FakeVerbs::qp_transitions() const {
    const Lock lock(fabric_->mutex);
    return fabric_->transitions;
}

std::size_t FakeVerbs::delivered_messages() const {
    const Lock lock(fabric_->mutex);
    return fabric_->delivered;
}

}  // namespace shakedown::ib::testing
