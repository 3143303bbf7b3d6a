#include "kernels/stencil/halo_exchange.hpp"

#include "core/clock.hpp"
#include "core/errors.hpp"

#include <fmt/format.h>
#include <mpi.h>

namespace shakedown::kernels {

std::optional<HaloPath> parse_halo_path(const std::string& text) {
    if (text == "auto") return std::nullopt;
    if (text == "host") return HaloPath::host;
    if (text == "nccl") return HaloPath::nccl;
    throw InputError(fmt::format("stencil3d: halo_path must be auto, host (pinned host buffers and MPI) or nccl (GPU to GPU), not '{}'",
                                 text));
}

std::string_view to_string(HaloPath path) { return path == HaloPath::nccl ? "nccl" : "host"; }

bool device_halo_exchange_built() {
#ifdef SHAKEDOWN_KERNELS_HAVE_NCCL
    return true;  // NCCL is only ever built together with CUDA
#else
    return false;
#endif
}

HaloExchange::HaloExchange(const StencilGeometry& geometry) : geometry_(geometry) {
    for (int face = 0; face < stencil_faces; ++face) faces_[face] = geometry.neighbour(face) != MPI_PROC_NULL;
}

namespace {

// Runs `work` and adds its wall time to `into` (a StepTiming phase).
template <class Work>
void timed(double& into, Work&& work) {
    const Stopwatch watch;
    work();
    into += watch.seconds();
}

}  // namespace

StepTiming HaloExchange::step(StencilBackend& backend) {
    if (backend.exchanges_halos_on_device()) return device_step(backend);
    StepTiming timing;
    // What this rank sends through its face f arrives at the neighbour's opposite face
    // f ^ 1; the tag is the sender's face, so a receive on face g expects tag g ^ 1.
    std::array<MPI_Request, 2 * stencil_faces> requests{};
    int count = 0;
    timed(timing.halo_s, [&] {
        for (int face = 0; face < stencil_faces; ++face) {
            if (!faces_[face]) continue;
            const auto buffer = backend.receive_buffer(face);
            MPI_Irecv(buffer.data, static_cast<int>(buffer.size), MPI_DOUBLE, geometry_.neighbour(face), face ^ 1,
                      geometry_.cart(), &requests[count++]);
        }
        backend.pack(faces_);
    });

    // A GPU queues the interior behind the packing at once, then waits for the send
    // buffers: packing, copies and transfers all overlap the interior. The host packs
    // first and sends before its (synchronous) interior.
    const bool overlap = backend.interior_runs_asynchronously();
    if (overlap) timed(timing.compute_s, [&] { backend.start_interior(); });

    timed(timing.halo_s, [&] {
        backend.wait_packed();
        for (int face = 0; face < stencil_faces; ++face) {
            if (!faces_[face]) continue;
            const auto buffer = backend.send_buffer(face);
            MPI_Isend(buffer.data, static_cast<int>(buffer.size), MPI_DOUBLE, geometry_.neighbour(face), face,
                      geometry_.cart(), &requests[count++]);
        }
    });

    if (!overlap) timed(timing.compute_s, [&] { backend.start_interior(); });

    timed(timing.halo_s, [&] {
        MPI_Waitall(count, requests.data(), MPI_STATUSES_IGNORE);
        backend.unpack(faces_);
    });
    timed(timing.compute_s, [&] { backend.finish_step(); });
    return timing;
}

// Every call only queues work on the GPU (the backend orders it on its streams), so the
// host moves on to the next step at once; the times are the host's launch costs.
StepTiming HaloExchange::device_step(StencilBackend& backend) const {
    StepTiming timing;
    timed(timing.halo_s, [&] { backend.pack(faces_); });
    timed(timing.compute_s, [&] { backend.start_interior(); });
    timed(timing.halo_s, [&] {
        backend.exchange(faces_);
        backend.unpack(faces_);
    });
    timed(timing.compute_s, [&] { backend.finish_step(); });
    return timing;
}

}  // namespace shakedown::kernels
