// Where the stencil runs: the host through Kokkos, or the bound GPU through CUDA (or through
// Kokkos' CUDA backend with `backend: kokkos`). A backend
// owns the two fields (current and next, one halo layer each) on its memory and the host
// buffers the halo exchange sends from and receives into (pinned memory on a GPU).
//
// One step, driven by HaloExchange so communication overlaps the bulk of the work:
//   receives posted -> pack(faces) -> send buffers ready -> sends posted -> start_interior()
//   -> MPI wait -> unpack(faces) -> finish_step()
// A backend whose interior runs asynchronously (a GPU) starts the interior right after
// pack() has queued its copies and only then waits for the send buffers, so the packing and
// the transfers hide behind the interior too. The interior (cells that read no halo a
// neighbour sends) needs no message; the shell next to the neighbour faces is updated after
// the halos arrive. Every cell gets the same update whatever the split. A GPU does not wait
// at the end of a step: the next step's interior queues right behind this step's shell (no
// idle gap between steps), and without neighbours the host queues all steps and waits once
// (synchronize()). Receive buffers may change between steps (a GPU alternates two, so a
// receive posted for step t never lands where step t-1's copy to the device still reads):
// ask for them every step.
//
// halo_path nccl (opt-in, CUDA backend in a build with NCCL): after use_device_halo_exchange()
// the backend moves the faces itself, GPU to GPU, ordered on its own streams; HaloExchange
// then posts no MPI message and never waits:
//   pack(faces) -> start_interior() -> exchange(faces) -> unpack(faces) -> finish_step()
#pragma once

#include "core/errors.hpp"

#include <mpi.h>

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace shakedown::kernels {

using FaceMask = std::array<bool, 6>;  // faces that have a neighbour

// A host buffer the backend owns (this header is also compiled as CUDA C++17: no std::span).
struct FaceBufferView {
    double* data = nullptr;
    std::size_t size = 0;
};

// Thread-block shape of the GPU update (config parameters gpu_block_x/y, gpu_z_chunk,
// gpu_cells_per_thread): a block_x x block_y tile of threads over x-y, each thread owning
// cells_per_thread adjacent x cells (1 or 2; with 2, block_x must be a multiple of 32: x
// neighbours cross lanes by warp shuffles) and walking z_chunk planes along z.
// Default: the best of bench/gpu/stencil_probe.cu on an H200 at 512^3 (two cells per thread,
// 32x8 threads, 8 planes, 0.894 of triad by events; the 2-GPU step emulated with the product's
// pair kernel 0.857; one cell per thread peaked at 0.826 with 32x4x8).
// The Kokkos backend's automatic block_y (see gpu_shape in stencil3d.cpp).
inline constexpr int kokkos_gpu_block_y = 4;

struct GpuStencilShape {
    int block_x = 32;
    int block_y = 8;
    int z_chunk = 8;
    int cells_per_thread = 2;
};

class StencilBackend {
public:
    virtual ~StencilBackend() = default;
    virtual std::string name() const = 0;
    // GPU backends take the shape before the first step; the host backend has no use for it.
    virtual void set_gpu_shape(const GpuStencilShape&) {}
    // The whole field with halos, i fastest (StencilGeometry::index).
    virtual void load(const std::vector<double>& field) = 0;

    // Host memory MPI sends from / receives into, face_cells values each.
    virtual FaceBufferView send_buffer(int face) = 0;
    virtual FaceBufferView receive_buffer(int face) = 0;
    // Boundary layers next to the faces in `faces` -> send buffers; complete on return unless
    // interior_runs_asynchronously(), then complete after wait_packed().
    virtual void pack(const FaceMask& faces) = 0;
    virtual void wait_packed() {}
    // True when start_interior() returns before the interior is done (work queued on a GPU).
    virtual bool interior_runs_asynchronously() const { return false; }
    // Starts the update of the interior (may return before it is done).
    virtual void start_interior() = 0;
    // Receive buffers -> halo layers beyond the faces in `faces`.
    virtual void unpack(const FaceMask& faces) = 0;
    // Updates the boundary shell and makes the new field current. An asynchronous backend
    // may return with the work queued (the next step's work is ordered behind it); the
    // host backend returns with the step done.
    virtual void finish_step() = 0;
    // Waits until every queued step is done (timing ends here).
    virtual void synchronize() {}

    // Device-resident halo exchange (halo_path nccl). Collective over `comm`, whose ranks
    // neighbour_ranks names (MPI_PROC_NULL: no neighbour). Backends without it refuse.
    virtual void use_device_halo_exchange(MPI_Comm /*comm*/, const std::array<int, 6>& /*neighbour_ranks*/) {
        throw InputError("stencil3d: halo_path nccl needs the CUDA backend; " + name() + " exchanges halos through the host");
    }
    virtual bool exchanges_halos_on_device() const { return false; }
    // Device path only: queues this step's sends (faces of the current field, after pack())
    // and receives (before unpack()) for the faces in `faces`.
    virtual void exchange(const FaceMask& /*faces*/) {}

    // Both wait for queued steps first.
    virtual std::vector<double> field() const = 0;
    // Test-only planted fault: overwrite one cell (local indices, 1-based interior).
    virtual void corrupt(std::size_t i, std::size_t j, std::size_t k) = 0;
};

using LocalExtent = std::array<std::size_t, 3>;
std::unique_ptr<StencilBackend> make_host_stencil(const LocalExtent& local);              // throws without Kokkos
std::unique_ptr<StencilBackend> make_cuda_stencil(const LocalExtent& local, int device);  // throws without CUDA
// `backend: kokkos` on a GPU: the Kokkos stencil in Kokkos::Cuda on `device` (the one Kokkos was
// initialised on), halos through the host buffers; throws when this Kokkos has no CUDA backend.
std::unique_ptr<StencilBackend> make_kokkos_device_stencil(const LocalExtent& local, int device);

// A box of cells [lo, hi) per dimension (local indices).
struct CellBox {
    std::array<std::size_t, 3> lo{};
    std::array<std::size_t, 3> hi{};
    bool empty() const { return lo[0] >= hi[0] || lo[1] >= hi[1] || lo[2] >= hi[2]; }
};
// The interior (no cell next to a face) and the shell around it as six disjoint slabs;
// together they cover every cell 1..local exactly once.
CellBox interior_box(const LocalExtent& local);
std::array<CellBox, 6> shell_boxes(const LocalExtent& local);
// The same where only the faces in `neighbours` receive halos: the interior reaches the
// other faces (their halos hold the fixed boundary values), and the slabs beyond them are
// empty. With no neighbour at all the interior is the whole block.
CellBox interior_box(const LocalExtent& local, const FaceMask& neighbours);
std::array<CellBox, 6> shell_boxes(const LocalExtent& local, const FaceMask& neighbours);

}  // namespace shakedown::kernels
