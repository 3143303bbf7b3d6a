#include "placement/placement.hpp"

#include "core/communicator.hpp"
#include "core/errors.hpp"
#include "gpu/gpu_facts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sched.h>
#include <unistd.h>

namespace shakedown::placement {

std::string_view to_string(Placement placement) { return placement == Placement::gpu ? "gpu" : "host"; }

std::optional<int> usable_gpu(const RunContext& ctx) {
    if (!gpu::cuda_built()) return std::nullopt;
    return ctx.session().gpu();
}

Placement choose_placement(const RunContext& ctx, const std::string& requested) {
    if (requested == "host") return Placement::host;
    if (requested == "gpu") {
        if (!usable_gpu(ctx)) throw InputError("device 'gpu' requested but this rank has no CUDA device");
        return Placement::gpu;
    }
    if (requested == "auto") return usable_gpu(ctx) ? Placement::gpu : Placement::host;
    throw InputError(fmt::format("unknown device '{}' (known: auto, host, gpu)", requested));
}

namespace {

std::optional<std::string> shared_gpu_waiver(const RunContext& ctx) {
    const auto owner = ctx.session().gpu_owner();
    if (!owner || *owner == ctx.session().world_rank()) return std::nullopt;
    return fmt::format("GPU {} is shared with rank {}, which measures it (one rank per GPU)", *ctx.session().gpu(), *owner);
}

}  // namespace

std::optional<std::string> gpu_request_waiver(const RunContext& ctx, const std::string& requested) {
    if (requested == "gpu" && !usable_gpu(ctx)) return std::string(no_cuda_device);
    if ((requested == "gpu" || requested == "auto") && usable_gpu(ctx)) return shared_gpu_waiver(ctx);
    return std::nullopt;
}

std::optional<std::string> gpu_only_waiver(const RunContext& ctx) {
    if (!usable_gpu(ctx)) return std::string(no_cuda_device);
    return shared_gpu_waiver(ctx);
}

int ranks_sharing_this_node(const RunContext& ctx, bool on_host) {
    const Communicator node = Communicator::split_shared(ctx.comm());
    int mine = on_host ? 1 : 0;
    int sharing = 0;
    MPI_Allreduce(&mine, &sharing, 1, MPI_INT, MPI_SUM, node.get());
    return sharing;
}

double node_cores(const RunContext& ctx) {
    const auto& inventory = ctx.inventory();
    const nlohmann::json cpu = inventory.contains("cpu") ? inventory["cpu"] : nlohmann::json::object();
    double cores = cpu.value("cores", 0);
    if (const int allowed = cpu.value("allowed_pus", 0); allowed > 0 && allowed < cores) cores = allowed;
    if (cores <= 0) cores = static_cast<double>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
    return cores;
}

double cores_per_rank(const RunContext& ctx, int sharing) {
    const double cores = node_cores(ctx);
    double share = cores / std::max(1, sharing);
    // A rank bound to fewer cores (mpirun binds to a core for small jobs) can only use those.
    cpu_set_t bound;
    if (sched_getaffinity(0, sizeof bound, &bound) == 0) {
        const auto& inventory = ctx.inventory();
        const nlohmann::json cpu = inventory.contains("cpu") ? inventory["cpu"] : nlohmann::json::object();
        const double pus = cpu.value("pus", 0);
        const double threads_per_core = pus > 0 && cpu.value("cores", 0) > 0 ? std::max(1.0, pus / cpu.value("cores", 1)) : 1.0;
        share = std::min(share, CPU_COUNT(&bound) / threads_per_core);
    }
    return share;
}

std::uint64_t host_memory_bytes(const RunContext& ctx) {
    const auto& inventory = ctx.inventory();
    if (inventory.contains("memory") && inventory["memory"].contains("total_bytes"))
        return inventory["memory"]["total_bytes"].get<std::uint64_t>();
    return static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace shakedown::placement
