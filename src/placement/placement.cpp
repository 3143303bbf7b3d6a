#include "placement/placement.hpp"

#include "core/errors.hpp"
#include "gpu/gpu_facts.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
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

std::optional<std::string> gpu_request_waiver(const RunContext& ctx, const std::string& requested) {
    if (requested == "gpu" && !usable_gpu(ctx)) return std::string(no_cuda_device);
    return std::nullopt;
}

std::uint64_t host_memory_bytes(const RunContext& ctx) {
    const auto& inventory = ctx.inventory();
    if (inventory.contains("memory") && inventory["memory"].contains("total_bytes"))
        return inventory["memory"]["total_bytes"].get<std::uint64_t>();
    return static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace shakedown::placement
