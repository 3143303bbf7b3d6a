// One side of a reliable-connected (RC) link: device context, protection domain, completion
// queues, the registered buffer and the QP, declared in the order that destroys them safely
// (QP and MR before PD and CQs, everything before the context). Connection data goes to the
// peer through a PeerChannel; connect() then walks the QP through INIT -> RTR -> RTS.
#pragma once

#include "ib/pair/peer_channel.hpp"
#include "ib/verbs/endpoint_selection.hpp"
#include "ib/verbs/verbs_api.hpp"

#include <cstddef>
#include <memory>

namespace shakedown::ib {

// Page-aligned host memory (RAII).
class HostBuffer {
public:
    explicit HostBuffer(std::size_t bytes);
    std::byte* data() const { return bytes_.get(); }
    std::size_t size() const { return size_; }

private:
    struct Free {
        void operator()(std::byte* p) const;
    };
    std::unique_ptr<std::byte[], Free> bytes_;
    std::size_t size_;
};

class RcEndpoint {
public:
    // Opens the chosen device and port, creates CQs and an RC QP with `queue_depth` send and
    // receive entries, and moves the QP to INIT.
    RcEndpoint(const VerbsApi& api, const EndpointChoice& choice, int queue_depth);

    ProtectionDomain& pd() { return *pd_; }
    // Registers page-aligned host memory of `bytes` as the buffer the peer addresses.
    void use_host_buffer(std::size_t bytes);
    // Uses memory registered elsewhere (GPU memory); it must stay valid while this lives.
    void use_region(std::unique_ptr<MemoryRegion> region);

    std::byte* host_bytes() const { return host_ ? host_->data() : nullptr; }  // nullptr for GPU memory
    const MemoryRegion& region() const { return *region_; }
    const EndpointChoice& choice() const { return choice_; }

    ConnectionData local_data() const;
    // Exchanges connection data over `channel`, then RTR and RTS with the peer's data. The
    // path MTU is the smaller of the two active MTUs.
    void connect(PeerChannel& channel);
    const ConnectionData& peer() const { return peer_; }

    QueuePair& qp() { return *qp_; }
    CompletionQueue& send_cq() { return *send_cq_; }
    CompletionQueue& receive_cq() { return *receive_cq_; }

    // Waits for the next completion of `cq` up to `timeout_s`; a failed completion or a timeout
    // throws VerbsError naming `what`.
    Completion wait(CompletionQueue& cq, double timeout_s, std::string_view what);

private:
    EndpointChoice choice_;
    std::unique_ptr<DeviceContext> context_;
    std::unique_ptr<ProtectionDomain> pd_;
    std::unique_ptr<CompletionQueue> send_cq_;
    std::unique_ptr<CompletionQueue> receive_cq_;
    std::unique_ptr<QueuePair> qp_;
    std::unique_ptr<HostBuffer> host_;
    std::unique_ptr<MemoryRegion> region_;
    Gid local_gid_{};
    ConnectionData peer_{};
    std::vector<Completion> polled_;
};

}  // namespace shakedown::ib
