// The narrow verbs interface the RDMA tests are written against: the few operations the
// inventory and the RC protocol need, nothing more. Two implementations: the real one on
// libibverbs (verbs_system.cpp, compiled when SHAKEDOWN_HAVE_VERBS) and an in-process fake
// (fake_verbs.hpp, test-only) that lets CI exercise the protocol without an HCA.
//
// Ownership: every object returned here owns its handle (RAII) and must be destroyed before
// the object that created it (MR and QP before their PD, PD and CQ before their context).
// RcEndpoint (rc_endpoint.hpp) declares its members in that order.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::ib {

// A verbs call failed: the message names the call and the provider's reason.
class VerbsError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class LinkLayer { infiniband, ethernet, unspecified };
std::string_view to_string(LinkLayer layer);  // "InfiniBand", "Ethernet", "unspecified"

struct DeviceInfo {
    std::string name;       // "mlx5_0"
    std::string firmware;   // "28.39.1002"
    std::string node_guid;  // 16 hex digits
    int port_count = 0;
    int numa_node = -1;       // -1: unknown (or a single-node machine)
    std::string pci_address;  // "0000:17:00.0"; empty when unknown
};

struct PortInfo {
    int port = 1;
    std::string state;           // "ACTIVE", "DOWN", "INIT", "ARMED"
    std::string physical_state;  // "LinkUp", "Polling", "Disabled", ...
    unsigned speed_code = 0;     // ibv_port_attr.active_speed (IBTA encoding)
    unsigned width_code = 0;     // ibv_port_attr.active_width (IBTA encoding)
    int active_mtu_bytes = 0;
    int max_mtu_bytes = 0;
    LinkLayer link_layer = LinkLayer::unspecified;
    std::uint16_t lid = 0;
    int gid_table_length = 0;
};

using Gid = std::array<std::uint8_t, 16>;
std::string format_gid(const Gid& gid);  // "fe80:0000:...:0001", the sysfs form

struct GidEntry {
    int index = 0;
    Gid gid{};
    std::string type;    // "IB/RoCE v1" or "RoCE v2" (sysfs gid_attrs/types); empty when unknown
    std::string netdev;  // the Ethernet device of a RoCE GID (sysfs gid_attrs/ndevs); may be empty
};

// Port counters by their sysfs names (symbol_error, link_downed, port_rcv_errors, ...).
using PortCounters = std::map<std::string, std::uint64_t>;

// What one side of an RC connection tells the other (over MPI) so both can move their QP to
// RTR and RTS and address each other's buffer. Trivially copyable: sent as bytes.
struct ConnectionData {
    std::uint32_t qp_number = 0;
    std::uint32_t first_psn = 0;
    std::uint16_t lid = 0;
    std::uint8_t port = 1;
    std::uint8_t reserved = 0;
    Gid gid{};
    std::uint64_t buffer_address = 0;
    std::uint64_t buffer_bytes = 0;
    std::uint32_t rkey = 0;
    std::uint32_t mtu_bytes = 0;
};

// How to reach the peer: LID routing on InfiniBand, a GID (global route) on RoCE.
struct PathSettings {
    int port = 1;
    std::optional<int> gid_index;  // set: global routing header with this source GID
    int mtu_bytes = 1024;
};

enum class QpState { reset, init, ready_to_receive, ready_to_send, error };
std::string_view to_string(QpState state);  // "RESET", "INIT", "RTR", "RTS", "ERR"

enum class WorkKind { send, receive, rdma_write, rdma_read };
std::string_view to_string(WorkKind kind);

class MemoryRegion {
public:
    virtual ~MemoryRegion() = default;
    virtual std::uint64_t address() const = 0;  // what the peer puts in an RDMA request
    virtual std::size_t length() const = 0;
    virtual std::uint32_t lkey() const = 0;
    virtual std::uint32_t rkey() const = 0;
};

struct WorkRequest {
    WorkKind kind = WorkKind::send;
    std::uint64_t id = 0;
    const MemoryRegion* local = nullptr;
    std::size_t local_offset = 0;
    std::size_t length = 0;
    std::uint64_t remote_address = 0;  // RDMA write/read only
    std::uint32_t rkey = 0;            // RDMA write/read only
    bool signaled = true;              // receives always complete
};

struct Completion {
    std::uint64_t id = 0;
    WorkKind kind = WorkKind::send;
    bool ok = true;
    std::string error;  // the provider's status text when !ok
    std::size_t bytes = 0;
};

class CompletionQueue {
public:
    virtual ~CompletionQueue() = default;
    // Appends at most `max` completions to `out`; returns how many. Never blocks.
    virtual std::size_t poll(std::vector<Completion>& out, std::size_t max) = 0;
};

struct QpCapacity {
    int send_depth = 128;
    int receive_depth = 128;
};

class QueuePair {
public:
    virtual ~QueuePair() = default;
    virtual std::uint32_t number() const = 0;
    virtual QpState state() const = 0;
    // RESET -> INIT -> RTR -> RTS; anything else throws VerbsError naming both states.
    virtual void to_init(int port) = 0;
    virtual void to_ready_to_receive(const ConnectionData& peer, const PathSettings& path) = 0;
    virtual void to_ready_to_send(std::uint32_t first_psn) = 0;
    virtual void post(const WorkRequest& request) = 0;  // throws VerbsError
};

class ProtectionDomain {
public:
    virtual ~ProtectionDomain() = default;
    // Local write plus remote read and write access. `address` may be device memory when a
    // peer-memory module (nvidia-peermem) lets the HCA map it.
    virtual std::unique_ptr<MemoryRegion> register_memory(void* address, std::size_t length) = 0;
    // dma-buf registration (ibv_reg_dmabuf_mr): `fd` exported by the GPU driver.
    virtual std::unique_ptr<MemoryRegion> register_dmabuf(int fd, std::uint64_t offset, std::size_t length,
                                                          std::uint64_t iova) = 0;
    virtual std::unique_ptr<QueuePair> create_rc_qp(CompletionQueue& send_cq, CompletionQueue& receive_cq,
                                                    QpCapacity capacity) = 0;
};

class DeviceContext {
public:
    virtual ~DeviceContext() = default;
    virtual const DeviceInfo& info() const = 0;
    virtual PortInfo query_port(int port) const = 0;              // throws VerbsError
    virtual std::vector<GidEntry> gid_table(int port) const = 0;  // populated (non-zero) entries
    virtual std::unique_ptr<ProtectionDomain> allocate_pd() = 0;
    virtual std::unique_ptr<CompletionQueue> create_cq(int depth) = 0;
};

class VerbsApi {
public:
    virtual ~VerbsApi() = default;
    virtual std::string_view implementation() const = 0;  // "libibverbs" or "fake (in-process)"
    virtual std::vector<std::string> device_names() const = 0;
    virtual std::unique_ptr<DeviceContext> open(const std::string& device) const = 0;  // throws VerbsError
    // Counters of one port (empty when the provider exposes none); throws nothing.
    virtual PortCounters port_counters(const std::string& device, int port) const = 0;
};

// libibverbs on this node. Built without libibverbs it has no devices; the reason says so.
std::unique_ptr<VerbsApi> make_system_verbs();
std::optional<std::string> system_verbs_missing_reason();  // "built without libibverbs"

}  // namespace shakedown::ib
