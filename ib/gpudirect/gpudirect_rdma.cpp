// gpudirect_rdma: registers GPU memory with the HCA (dma-buf first, then nvidia-peermem),
// moves data GPU to GPU between rank pairs with RDMA write and read, and measures bandwidth
// beside the port rate and beside the same stream from host memory on the same QP setup. The
// timed streams move one payload put in GPU memory before the clock starts; an untimed
// validation pass after each sends a few messages, each its own pattern, checked in host memory. The result names the registration path that worked, or exactly
// why none did (a FAIL: GPU traffic would bounce through host memory).
#include "comm/pair_sweep.hpp"
#include "comm/payload.hpp"
#include "core/errors.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "gpu/cuda_owners.hpp"
#include "ib/gpudirect/gpu_registration.hpp"
#include "ib/gpudirect/rdma_stream.hpp"
#include "ib/rdma_waiver.hpp"
#include "ib/specs.hpp"
#include "ib/verbs/rdma_context.hpp"

#include <fmt/format.h>

#include <span>
#include <vector>

namespace shakedown::ib {
namespace {

constexpr std::size_t registration_granule = 2u << 20;  // GPU pages are 2 MiB; dma-buf wants page-aligned ranges

// GPU memory as a validated stream sees it: patterns made and checked in host memory, copied over.
class GpuStreamMemory final : public StreamMemory {
public:
    GpuStreamMemory(std::byte* base, std::size_t bytes) : base_(base), host_(bytes) {}

    void fill(std::size_t offset, std::size_t bytes, std::uint64_t seed, bool corrupt) override {
        const std::span<std::byte> host(host_.data(), bytes);
        comm::fill_payload(host, seed);
        if (corrupt) host[0] = ~host[0];
        SHAKEDOWN_CUDA(cudaMemcpy(base_ + offset, host.data(), bytes, cudaMemcpyHostToDevice));
    }
    void spoil(std::size_t offset, std::size_t bytes, std::uint64_t seed) override {
        const std::span<std::byte> host(host_.data(), bytes);
        comm::fill_payload(host, seed);
        for (auto& byte : host) byte = ~byte;
        SHAKEDOWN_CUDA(cudaMemcpy(base_ + offset, host.data(), bytes, cudaMemcpyHostToDevice));
    }
    std::optional<std::size_t> first_mismatch(std::size_t offset, std::size_t bytes, std::uint64_t seed) override {
        SHAKEDOWN_CUDA(cudaMemcpy(host_.data(), base_ + offset, bytes, cudaMemcpyDeviceToHost));
        return comm::first_mismatch(std::span<const std::byte>(host_.data(), bytes), seed);
    }

private:
    std::byte* base_;
    std::vector<std::byte> host_;
};

struct GpuFigures {
    double write_gbps = 0.0;
    double read_gbps = 0.0;
    double host_write_gbps = 0.0;
};

class GpudirectRdma final : public Test {
public:
    GpudirectRdma() : Test(gpudirect_rdma_spec()) {}

    void check_on_node(const TestParams& params) const override { check_endpoint_on_this_node(params); }

    std::optional<std::string> waiver(const RunContext& ctx) const override {
        if (auto none = no_rdma_device_waiver(*make_system_verbs())) return none;
        if (!ctx.session().gpu()) return "no CUDA device";
        return std::nullopt;
    }

    TestResult run(const RunContext& ctx) const override {
        const auto api = make_system_verbs();
        const auto [choice, nominal] = resolve_rdma_endpoint(*api, ctx);
        const comm::PairSweep pairs = rdma_pair_sweep(ctx);

        TestResult result;
        result.parameters["endpoint"] = fmt::format("{} port {}, {}", choice.device, choice.port, choice.reason);
        if (pairs.empty()) {
            result.waive(no_inter_node_pair);
            return result;
        }
        result.parameters["pairs_run"] = pairs.description();
        SHAKEDOWN_CUDA(cudaSetDevice(*ctx.session().gpu()));
        std::optional<GpuFigures> worst;
        pairs.for_each_turn([&](const comm::PairTurn& turn) {
            MpiPeerChannel channel(ctx.comm(), turn.peer);
            if (const auto figures = measure_pair(*api, choice, channel, turn.initiator, ctx, turn.label(), result))
                if (!worst || figures->write_gbps < worst->write_gbps) worst = figures;
        });
        if (worst) {
            result.add_metric("gpudirect_rdma.write_bandwidth_gbps", worst->write_gbps, nominal);
            result.add_metric("gpudirect_rdma.read_bandwidth_gbps", worst->read_gbps, nominal);
            result.add_metric("gpudirect_rdma.host_write_bandwidth_gbps", worst->host_write_gbps, nominal);
            if (worst->host_write_gbps > 0)
                result.add_metric("gpudirect_rdma.write_vs_host_ratio", worst->write_gbps / worst->host_write_gbps, 1.0);
        }
        return result;
    }

private:
    static std::optional<GpuFigures> measure_pair(const VerbsApi& api, const EndpointChoice& choice, PeerChannel& channel,
                                                  bool initiator, const RunContext& ctx, const std::string& label,
                                                  TestResult& result) {
        const auto& params = ctx.params();
        const auto bytes = static_cast<std::size_t>(params.integer("bytes"));
        const int messages = static_cast<int>(params.integer("messages"));
        const int depth = static_cast<int>(params.integer("queue_depth"));
        const double timeout = params.real("timeout_s");
        const std::size_t slot = (bytes + registration_granule - 1) / registration_granule * registration_granule;

        // GPU memory first: it must outlive the endpoint that registers it.
        const gpu::DeviceBuffer<std::byte> gpu_memory(2 * slot);  // slot 0 receives, slot 1 is the source
        std::unique_ptr<RcEndpoint> endpoint;
        GpuRegistration registration;
        std::string setup_error;
        try {
            endpoint = std::make_unique<RcEndpoint>(api, choice, depth);
            registration = register_gpu_memory(endpoint->pd(), *ctx.session().gpu(), gpu_memory.get(), gpu_memory.bytes());
            if (!registration.region) setup_error = registration.why_none();
            else endpoint->use_region(std::move(registration.region));
        } catch (const VerbsError& error) {
            setup_error = error.what();
        }
        result.parameters["registration_path"] = registration.path.empty() ? "none" : registration.path;
        if (!registration.dmabuf_error.empty()) result.parameters["dmabuf_unavailable"] = registration.dmabuf_error;
        if (!registration.peer_memory_error.empty()) result.parameters["peer_memory_unavailable"] = registration.peer_memory_error;
        if (channel.swap(setup_error.empty() ? 1 : 0) == 0 || !setup_error.empty()) {
            result.fail(fmt::format("{}: {}", label, setup_error.empty() ? "the peer could not register GPU memory" : setup_error));
            return std::nullopt;
        }

        GpuFigures figures;
        try {
            endpoint->connect(channel);
            figures.write_gbps = gpu_stream(*endpoint, channel, initiator, gpu_memory, slot, WorkKind::rdma_write, bytes, messages,
                                            depth, timeout, ctx.faults().corrupt(), label, result);
            figures.read_gbps = gpu_stream(*endpoint, channel, initiator, gpu_memory, slot, WorkKind::rdma_read, bytes, messages,
                                           depth, timeout, ctx.faults().corrupt(), label, result);
            figures.host_write_gbps = host_stream(api, choice, channel, initiator, bytes, messages, depth, timeout);
        } catch (const std::exception& error) {
            result.fail(fmt::format("{}: {}", label, error.what()));
            return std::nullopt;
        }
        return figures;  // each stream already gave both sides the initiator's figure
    }

    // Write: the initiator's GPU source (slot 1) -> the responder's GPU slot 0, checked by the
    // responder. Read: the responder's GPU source -> the initiator's GPU slot 0, checked by the
    // initiator.
    static double gpu_stream(RcEndpoint& endpoint, PeerChannel& channel, bool initiator, const gpu::DeviceBuffer<std::byte>& gpu_memory,
                             std::size_t slot, WorkKind kind, std::size_t bytes, int messages, int depth, double timeout,
                             bool corrupt, const std::string& label, TestResult& result) {
        GpuStreamMemory memory(gpu_memory.get(), bytes);
        StreamSetup setup;
        setup.kind = kind;
        setup.bytes = bytes;
        setup.messages = messages;
        setup.depth = depth;
        setup.timeout_s = timeout;
        setup.landing_offset = 0;
        setup.source_offset = slot;
        setup.corrupt = corrupt;
        const auto outcome = run_validated_stream(endpoint, channel, initiator, memory, setup);
        for (const auto& mismatch : outcome.mismatches) result.fail(fmt::format("{}: GPU {}", label, mismatch));
        return outcome.gbps;
    }

    // The same write stream from host memory: what GPUDirect is compared with.
    static double host_stream(const VerbsApi& api, const EndpointChoice& choice, PeerChannel& channel, bool initiator,
                              std::size_t bytes, int messages, int depth, double timeout) {
        RcEndpoint endpoint(api, choice, depth);
        endpoint.use_host_buffer(2 * bytes);
        endpoint.connect(channel);
        double gbps = 0.0;
        if (initiator)
            gbps = static_cast<double>(bytes) * messages * 8 /
                   stream_rdma(endpoint, WorkKind::rdma_write, bytes, 0, bytes, messages, depth, timeout) / 1e9;
        channel.barrier();
        return channel.swap(gbps) + gbps;
    }
};

}  // namespace

SHAKEDOWN_REGISTER_TEST(GpudirectRdma);

}  // namespace shakedown::ib
