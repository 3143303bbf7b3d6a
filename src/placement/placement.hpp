// Where a test runs on this rank: the host, or the GPU the session bound to it. The `device`
// parameter says auto|host|gpu; auto takes the GPU when CUDA is built in and the session bound
// one, so a GPU node measures its GPUs by default.
#pragma once

#include "core/run_context.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace shakedown::placement {

enum class Placement { host, gpu };

inline constexpr std::string_view no_cuda_device = "no CUDA device";

std::string_view to_string(Placement placement);

// The bound GPU when CUDA is built in and the session bound one.
std::optional<int> usable_gpu(const RunContext& ctx);

// Parses `requested`; throws InputError for a name that is not auto, host or gpu, and for
// gpu on a rank without a usable GPU (the caller's waiver normally catches that first).
Placement choose_placement(const RunContext& ctx, const std::string& requested);

// "no CUDA device" when `requested` is gpu and this rank has none; "GPU 0 is shared with rank 3,
// which measures it" when the test would run on a GPU another rank owns (one rank per GPU: a
// device is judged as a device, not as its share); nothing otherwise.
std::optional<std::string> gpu_request_waiver(const RunContext& ctx, const std::string& requested);

// For tests that only run on a GPU: no GPU, or a GPU another rank owns.
std::optional<std::string> gpu_only_waiver(const RunContext& ctx);

// Ranks of the test's communicator on this node that pass `on_host` = true (collective over
// ctx.comm(): every rank calls it): what shares the node's host cores and memory bandwidth.
int ranks_sharing_this_node(const RunContext& ctx, bool on_host);

// The node's physical cores (within the PUs the job may use).
double node_cores(const RunContext& ctx);

// Host cores this rank may count on: the node's cores divided by `sharing` ranks (a fraction when
// ranks outnumber cores), and no more than the cores its CPU affinity binds it to.
double cores_per_rank(const RunContext& ctx, int sharing);

// Physical memory of this node as the inventory recorded it (the OS's figure otherwise).
std::uint64_t host_memory_bytes(const RunContext& ctx);

}  // namespace shakedown::placement
