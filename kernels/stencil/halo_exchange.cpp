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

// What this rank sends through its face f arrives at the neighbour's opposite face f ^ 1; the
// tag is the sender's face, so a receive on face g expects tag g ^ 1.
void HaloExchange::post_receives(StencilBackend& backend, Requests& requests) const {
    for (int face = 0; face < stencil_faces; ++face) {
        if (!faces_[face]) continue;
        const auto buffer = backend.receive_buffer(face);
        MPI_Irecv(buffer.data, static_cast<int>(buffer.size), MPI_DOUBLE, geometry_.neighbour(face), face ^ 1, geometry_.cart(),
                  &requests.handles[requests.count++]);
    }
}

void HaloExchange::post_sends(StencilBackend& backend, Requests& requests) const {
    for (int face = 0; face < stencil_faces; ++face) {
        if (!faces_[face]) continue;
        const auto buffer = backend.send_buffer(face);
        MPI_Isend(buffer.data, static_cast<int>(buffer.size), MPI_DOUBLE, geometry_.neighbour(face), face, geometry_.cart(),
                  &requests.handles[requests.count++]);
    }
}

StepTiming HaloExchange::step(StencilBackend& backend) {
    if (backend.exchanges_halos_on_device()) return device_step(backend);
    StepTiming timing;
    Requests requests;
    timed(timing.halo_s, [&] {
        post_receives(backend, requests);
        backend.pack(faces_);
    });

    // A GPU queues the interior behind the packing at once, then waits for the send
    // buffers: packing, copies and transfers all overlap the interior. The host packs
    // first and sends before its (synchronous) interior.
    const bool overlap = backend.interior_runs_asynchronously();
    if (overlap) timed(timing.compute_s, [&] { backend.start_interior(); });

    timed(timing.halo_s, [&] {
        backend.wait_packed();
        post_sends(backend, requests);
    });

    if (!overlap) timed(timing.compute_s, [&] { backend.start_interior(); });

    timed(timing.halo_s, [&] {
        MPI_Waitall(requests.count, requests.handles.data(), MPI_STATUSES_IGNORE);
        backend.unpack(faces_);
    });
    timed(timing.compute_s, [&] { backend.finish_step(); });
    return timing;
}

void HaloExchange::update_alone(StencilBackend& backend) const {
    const FaceMask none{};
    backend.pack(none);
    backend.start_interior();
    backend.unpack(none);
    backend.finish_step();
}

void HaloExchange::exchange_alone(StencilBackend& backend) {
    if (backend.exchanges_halos_on_device()) {
        backend.pack(faces_);
        backend.exchange(faces_);
        backend.unpack(faces_);
        return;
    }
    Requests requests;
    post_receives(backend, requests);
    backend.pack(faces_);
    backend.wait_packed();
    post_sends(backend, requests);
    MPI_Waitall(requests.count, requests.handles.data(), MPI_STATUSES_IGNORE);
    backend.unpack(faces_);
}

double HaloExchange::exchanged_bytes(StencilBackend& backend) const {
    double bytes = 0.0;
    for (int face = 0; face < stencil_faces; ++face)
        if (faces_[face]) bytes += 2.0 * static_cast<double>(backend.send_buffer(face).size) * sizeof(double);
    return bytes;
}

double HaloExchange::interior_fraction() const {
    const LocalExtent& local = geometry_.local();
    const CellBox interior = interior_box(local, faces_);
    double cells = 1.0, all = 1.0;
    for (int d = 0; d < 3; ++d) {
        cells *= interior.empty() ? 0.0 : static_cast<double>(interior.hi[d] - interior.lo[d]);
        all *= static_cast<double>(local[d]);
    }
    return all > 0.0 ? cells / all : 0.0;
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
