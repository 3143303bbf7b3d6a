// The real verbs implementation on libibverbs (compiled when SHAKEDOWN_HAVE_VERBS). Each
// class owns exactly one verbs handle and releases it in its destructor.
#include "ib/inventory/sysfs_rdma.hpp"
#include "ib/verbs/verbs_api.hpp"

#include <infiniband/verbs.h>

#include <endian.h>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace shakedown::ib {
namespace {

constexpr int remote_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

[[noreturn]] void fail(std::string_view call, int error_number) {
    throw VerbsError(fmt::format("{} failed: {}", call, std::strerror(error_number)));
}

int mtu_bytes(ibv_mtu mtu) { return 128 << static_cast<int>(mtu); }  // IBV_MTU_256 = 1 .. IBV_MTU_4096 = 5

ibv_mtu mtu_code(int bytes) {
    switch (bytes) {
    case 256: return IBV_MTU_256;
    case 512: return IBV_MTU_512;
    case 1024: return IBV_MTU_1024;
    case 2048: return IBV_MTU_2048;
    case 4096: return IBV_MTU_4096;
    default: throw VerbsError(fmt::format("{} B is not an InfiniBand MTU (256, 512, 1024, 2048, 4096)", bytes));
    }
}

std::string physical_state_name(std::uint8_t code) {
    switch (code) {  // IBTA PortPhysicalState, as sysfs phys_state prints them
    case 1: return "Sleep";
    case 2: return "Polling";
    case 3: return "Disabled";
    case 4: return "PortConfigurationTraining";
    case 5: return "LinkUp";
    case 6: return "LinkErrorRecovery";
    case 7: return "PhyTest";
    default: return fmt::format("code {}", code);
    }
}

LinkLayer link_layer_of(std::uint8_t code) {
    if (code == IBV_LINK_LAYER_INFINIBAND) return LinkLayer::infiniband;
    if (code == IBV_LINK_LAYER_ETHERNET) return LinkLayer::ethernet;
    return LinkLayer::unspecified;
}

WorkKind kind_of(ibv_wc_opcode opcode) {
    switch (opcode) {
    case IBV_WC_RDMA_WRITE: return WorkKind::rdma_write;
    case IBV_WC_RDMA_READ: return WorkKind::rdma_read;
    case IBV_WC_SEND: return WorkKind::send;
    default: return WorkKind::receive;
    }
}

class SystemMr final : public MemoryRegion {
public:
    SystemMr(ibv_mr* mr, std::uint64_t address) : mr_(mr), address_(address) {}
    ~SystemMr() override { ibv_dereg_mr(mr_); }
    SystemMr(const SystemMr&) = delete;
    SystemMr& operator=(const SystemMr&) = delete;
    std::uint64_t address() const override { return address_; }
    std::size_t length() const override { return mr_->length; }
    std::uint32_t lkey() const override { return mr_->lkey; }
    std::uint32_t rkey() const override { return mr_->rkey; }

private:
    ibv_mr* mr_;
    std::uint64_t address_;
};

class SystemCq final : public CompletionQueue {
public:
    explicit SystemCq(ibv_cq* cq) : cq_(cq) {}
    ~SystemCq() override { ibv_destroy_cq(cq_); }
    SystemCq(const SystemCq&) = delete;
    SystemCq& operator=(const SystemCq&) = delete;
    ibv_cq* handle() const { return cq_; }

    std::size_t poll(std::vector<Completion>& out, std::size_t max) override {
        ibv_wc entries[32];
        const int want = static_cast<int>(std::min<std::size_t>(max, 32));
        const int got = ibv_poll_cq(cq_, want, entries);
        if (got < 0) throw VerbsError("ibv_poll_cq failed");
        for (int i = 0; i < got; ++i) {
            const auto& wc = entries[i];
            Completion completion{wc.wr_id, kind_of(wc.opcode), wc.status == IBV_WC_SUCCESS, {}, wc.byte_len};
            if (!completion.ok) completion.error = ibv_wc_status_str(wc.status);
            out.push_back(std::move(completion));
        }
        return static_cast<std::size_t>(got);
    }

private:
    ibv_cq* cq_;
};

class SystemQp final : public QueuePair {
public:
    explicit SystemQp(ibv_qp* qp) : qp_(qp) {}
    ~SystemQp() override { ibv_destroy_qp(qp_); }
    SystemQp(const SystemQp&) = delete;
    SystemQp& operator=(const SystemQp&) = delete;

    std::uint32_t number() const override { return qp_->qp_num; }
    QpState state() const override { return state_; }

    void to_init(int port) override {
        ibv_qp_attr attr{};
        attr.qp_state = IBV_QPS_INIT;
        attr.pkey_index = 0;
        attr.port_num = static_cast<std::uint8_t>(port);
        attr.qp_access_flags = remote_access;
        modify(attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, QpState::init);
    }

    void to_ready_to_receive(const ConnectionData& peer, const PathSettings& path) override {
        ibv_qp_attr attr{};
        attr.qp_state = IBV_QPS_RTR;
        attr.path_mtu = mtu_code(path.mtu_bytes);
        attr.dest_qp_num = peer.qp_number;
        attr.rq_psn = peer.first_psn;
        attr.max_dest_rd_atomic = 16;
        attr.min_rnr_timer = 12;
        attr.ah_attr.dlid = peer.lid;
        attr.ah_attr.port_num = static_cast<std::uint8_t>(path.port);
        if (path.gid_index) {
            attr.ah_attr.is_global = 1;
            std::memcpy(attr.ah_attr.grh.dgid.raw, peer.gid.data(), peer.gid.size());
            attr.ah_attr.grh.sgid_index = static_cast<std::uint8_t>(*path.gid_index);
            attr.ah_attr.grh.hop_limit = 64;
        }
        modify(attr,
               IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                   IBV_QP_MIN_RNR_TIMER,
               QpState::ready_to_receive);
    }

    void to_ready_to_send(std::uint32_t first_psn) override {
        ibv_qp_attr attr{};
        attr.qp_state = IBV_QPS_RTS;
        attr.timeout = 14;
        attr.retry_cnt = 7;
        attr.rnr_retry = 7;  // 7 = retry forever: a receiver a little late to post is not an error
        attr.sq_psn = first_psn;
        attr.max_rd_atomic = 16;
        modify(attr,
               IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
               QpState::ready_to_send);
    }

    void post(const WorkRequest& request) override {
        ibv_sge sge{};
        sge.addr = request.local->address() + request.local_offset;
        sge.length = static_cast<std::uint32_t>(request.length);
        sge.lkey = request.local->lkey();
        if (request.kind == WorkKind::receive) {
            ibv_recv_wr wr{};
            ibv_recv_wr* bad = nullptr;
            wr.wr_id = request.id;
            wr.sg_list = &sge;
            wr.num_sge = 1;
            if (const int error = ibv_post_recv(qp_, &wr, &bad)) fail("ibv_post_recv", error);
            return;
        }
        ibv_send_wr wr{};
        ibv_send_wr* bad = nullptr;
        wr.wr_id = request.id;
        wr.sg_list = &sge;
        wr.num_sge = 1;
        wr.send_flags = request.signaled ? IBV_SEND_SIGNALED : 0;
        switch (request.kind) {
        case WorkKind::send: wr.opcode = IBV_WR_SEND; break;
        case WorkKind::rdma_write: wr.opcode = IBV_WR_RDMA_WRITE; break;
        case WorkKind::rdma_read: wr.opcode = IBV_WR_RDMA_READ; break;
        case WorkKind::receive: break;
        }
        wr.wr.rdma.remote_addr = request.remote_address;
        wr.wr.rdma.rkey = request.rkey;
        if (const int error = ibv_post_send(qp_, &wr, &bad)) fail("ibv_post_send", error);
    }

private:
    void modify(ibv_qp_attr& attr, int mask, QpState next) {
        if (const int error = ibv_modify_qp(qp_, &attr, mask))
            throw VerbsError(fmt::format("ibv_modify_qp {} -> {} failed: {}", to_string(state_), to_string(next),
                                         std::strerror(error)));
        state_ = next;
    }

    ibv_qp* qp_;
    QpState state_ = QpState::reset;
};

class SystemPd final : public ProtectionDomain {
public:
    explicit SystemPd(ibv_pd* pd) : pd_(pd) {}
    ~SystemPd() override { ibv_dealloc_pd(pd_); }
    SystemPd(const SystemPd&) = delete;
    SystemPd& operator=(const SystemPd&) = delete;

    std::unique_ptr<MemoryRegion> register_memory(void* address, std::size_t length) override {
        ibv_mr* mr = ibv_reg_mr(pd_, address, length, remote_access);
        if (mr == nullptr) fail("ibv_reg_mr", errno);
        return std::make_unique<SystemMr>(mr, reinterpret_cast<std::uint64_t>(address));
    }

    std::unique_ptr<MemoryRegion> register_dmabuf(int fd, std::uint64_t offset, std::size_t length,
                                                  std::uint64_t iova) override {
        ibv_mr* mr = ibv_reg_dmabuf_mr(pd_, offset, length, iova, fd, remote_access);
        if (mr == nullptr) fail("ibv_reg_dmabuf_mr", errno);
        return std::make_unique<SystemMr>(mr, iova);
    }

    std::unique_ptr<QueuePair> create_rc_qp(CompletionQueue& send_cq, CompletionQueue& receive_cq,
                                            QpCapacity capacity) override {
        ibv_qp_init_attr init{};
        init.send_cq = dynamic_cast<SystemCq&>(send_cq).handle();
        init.recv_cq = dynamic_cast<SystemCq&>(receive_cq).handle();
        init.qp_type = IBV_QPT_RC;
        init.cap.max_send_wr = static_cast<std::uint32_t>(capacity.send_depth);
        init.cap.max_recv_wr = static_cast<std::uint32_t>(capacity.receive_depth);
        init.cap.max_send_sge = 1;
        init.cap.max_recv_sge = 1;
        ibv_qp* qp = ibv_create_qp(pd_, &init);
        if (qp == nullptr) fail("ibv_create_qp", errno);
        return std::make_unique<SystemQp>(qp);
    }

private:
    ibv_pd* pd_;
};

struct ContextCloser {
    void operator()(ibv_context* context) const { ibv_close_device(context); }
};
using ContextHandle = std::unique_ptr<ibv_context, ContextCloser>;

class SystemContext final : public DeviceContext {
public:
    SystemContext(ContextHandle context, DeviceInfo info) : handle_(std::move(context)), info_(std::move(info)) {}

    const DeviceInfo& info() const override { return info_; }

    PortInfo query_port(int port) const override {
        ibv_port_attr attr{};
        if (const int error = ibv_query_port(handle_.get(), static_cast<std::uint8_t>(port), &attr))
            fail(fmt::format("ibv_query_port({} port {})", info_.name, port), error);
        PortInfo info;
        info.port = port;
        info.state = ibv_port_state_str(attr.state);
        info.physical_state = physical_state_name(attr.phys_state);
        info.speed_code = attr.active_speed;
        info.width_code = attr.active_width;
        info.active_mtu_bytes = mtu_bytes(attr.active_mtu);
        info.max_mtu_bytes = mtu_bytes(attr.max_mtu);
        info.link_layer = link_layer_of(attr.link_layer);
        info.lid = attr.lid;
        info.gid_table_length = attr.gid_tbl_len;
        return info;
    }

    std::vector<GidEntry> gid_table(int port) const override {
        std::vector<GidEntry> entries;
        const int length = query_port(port).gid_table_length;
        for (int index = 0; index < length; ++index) {
            ibv_gid gid{};
            if (ibv_query_gid(handle_.get(), static_cast<std::uint8_t>(port), index, &gid) != 0) continue;
            GidEntry entry;
            entry.index = index;
            std::memcpy(entry.gid.data(), gid.raw, entry.gid.size());
            if (entry.gid == Gid{}) continue;  // unpopulated slot
            entry.type = read_gid_type(default_sysfs_infiniband, info_.name, port, index);
            entry.netdev = read_gid_netdev(default_sysfs_infiniband, info_.name, port, index);
            entries.push_back(std::move(entry));
        }
        return entries;
    }

    std::unique_ptr<ProtectionDomain> allocate_pd() override {
        ibv_pd* pd = ibv_alloc_pd(handle_.get());
        if (pd == nullptr) fail("ibv_alloc_pd", errno);
        return std::make_unique<SystemPd>(pd);
    }

    std::unique_ptr<CompletionQueue> create_cq(int depth) override {
        ibv_cq* cq = ibv_create_cq(handle_.get(), depth, nullptr, nullptr, 0);
        if (cq == nullptr) fail("ibv_create_cq", errno);
        return std::make_unique<SystemCq>(cq);
    }

private:
    ContextHandle handle_;
    DeviceInfo info_;
};

struct DeviceListDeleter {
    void operator()(ibv_device** list) const { ibv_free_device_list(list); }
};
using DeviceList = std::unique_ptr<ibv_device*, DeviceListDeleter>;

class SystemVerbs final : public VerbsApi {
public:
    std::string_view implementation() const override { return "libibverbs"; }

    std::vector<std::string> device_names() const override {
        int count = 0;
        const DeviceList list(ibv_get_device_list(&count));
        std::vector<std::string> names;
        for (int i = 0; list && i < count; ++i) names.emplace_back(ibv_get_device_name(list.get()[i]));
        return names;
    }

    std::unique_ptr<DeviceContext> open(const std::string& device) const override {
        int count = 0;
        const DeviceList list(ibv_get_device_list(&count));
        for (int i = 0; list && i < count; ++i) {
            if (device != ibv_get_device_name(list.get()[i])) continue;
            ContextHandle context(ibv_open_device(list.get()[i]));
            if (!context) fail(fmt::format("ibv_open_device({})", device), errno);
            ibv_device_attr attr{};
            if (const int error = ibv_query_device(context.get(), &attr))
                fail(fmt::format("ibv_query_device({})", device), error);
            DeviceInfo info;
            info.name = device;
            info.firmware = attr.fw_ver;
            info.node_guid = fmt::format("{:016x}", be64toh(attr.node_guid));
            info.port_count = attr.phys_port_cnt;
            info.numa_node = read_numa_node(default_sysfs_infiniband, device);
            info.pci_address = read_pci_address(default_sysfs_infiniband, device);
            return std::make_unique<SystemContext>(std::move(context), std::move(info));
        }
        throw VerbsError(fmt::format("no RDMA device named '{}'", device));
    }

    PortCounters port_counters(const std::string& device, int port) const override {
        return read_port_counters(default_sysfs_infiniband, device, port);
    }
};

}  // namespace

std::unique_ptr<VerbsApi> make_system_verbs() { return std::make_unique<SystemVerbs>(); }
std::optional<std::string> system_verbs_missing_reason() { return std::nullopt; }

}  // namespace shakedown::ib
