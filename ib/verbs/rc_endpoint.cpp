#include "ib/verbs/rc_endpoint.hpp"

#include "core/clock.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <new>

namespace shakedown::ib {
namespace {

constexpr std::align_val_t page_alignment{4096};

}  // namespace

void HostBuffer::Free::operator()(std::byte* p) const { ::operator delete[](p, page_alignment); }

HostBuffer::HostBuffer(std::size_t bytes)
    : bytes_(static_cast<std::byte*>(::operator new[](std::max<std::size_t>(bytes, 1), page_alignment))), size_(bytes) {}

RcEndpoint::RcEndpoint(const VerbsApi& api, const EndpointChoice& choice, int queue_depth)
    : choice_(choice), context_(api.open(choice.device)), pd_(context_->allocate_pd()),
      send_cq_(context_->create_cq(queue_depth)), receive_cq_(context_->create_cq(queue_depth)),
      qp_(pd_->create_rc_qp(*send_cq_, *receive_cq_, {queue_depth, queue_depth})) {
    if (choice_.gid_index) {
        const auto gids = context_->gid_table(choice_.port);
        const auto found =
            std::find_if(gids.begin(), gids.end(), [&](const GidEntry& e) { return e.index == *choice_.gid_index; });
        if (found == gids.end())
            throw VerbsError(fmt::format("GID index {} vanished from {} port {}", *choice_.gid_index, choice_.device,
                                         choice_.port));
        local_gid_ = found->gid;
    }
    qp_->to_init(choice_.port);
}

void RcEndpoint::use_host_buffer(std::size_t bytes) {
    region_.reset();
    host_ = std::make_unique<HostBuffer>(bytes);
    region_ = pd_->register_memory(host_->data(), bytes);
}

void RcEndpoint::use_region(std::unique_ptr<MemoryRegion> region) {
    region_ = std::move(region);
    host_.reset();
}

ConnectionData RcEndpoint::local_data() const {
    ConnectionData data;
    data.qp_number = qp_->number();
    data.first_psn = qp_->number() & 0xffffff;  // any 24-bit value both sides agree on
    data.lid = choice_.port_info.lid;
    data.port = static_cast<std::uint8_t>(choice_.port);
    data.gid = local_gid_;
    if (region_) {
        data.buffer_address = region_->address();
        data.buffer_bytes = region_->length();
        data.rkey = region_->rkey();
    }
    data.mtu_bytes = static_cast<std::uint32_t>(choice_.port_info.active_mtu_bytes);
    return data;
}

void RcEndpoint::connect(PeerChannel& channel) {
    peer_ = channel.swap(local_data());
    PathSettings path;
    path.port = choice_.port;
    path.gid_index = choice_.gid_index;
    path.mtu_bytes = static_cast<int>(std::min<std::uint32_t>(peer_.mtu_bytes, local_data().mtu_bytes));
    qp_->to_ready_to_receive(peer_, path);
    qp_->to_ready_to_send(local_data().first_psn);
    channel.barrier();  // neither side sends before both are RTS
}

Completion RcEndpoint::wait(CompletionQueue& cq, double timeout_s, std::string_view what) {
    const Stopwatch clock;
    std::size_t spins = 0;
    polled_.clear();
    while (cq.poll(polled_, 1) == 0) {
        if (++spins % 1024 == 0 && clock.seconds() > timeout_s)
            throw VerbsError(fmt::format("no completion for {} within {} s (peer gone or link down)", what, timeout_s));
    }
    Completion completion = std::move(polled_.front());
    if (!completion.ok) throw VerbsError(fmt::format("{} completed with error: {}", what, completion.error));
    return completion;
}

}  // namespace shakedown::ib
