// Where the stencil runs: the host through Kokkos, or the bound GPU through CUDA. A backend
// owns the two fields (current and next, one halo layer each) on its memory and the host
// buffers the halo exchange sends from and receives into (pinned memory on a GPU).
//
// One step, driven by HaloExchange so communication overlaps the bulk of the work:
//   pack(faces) -> MPI sends/receives posted -> start_interior() -> MPI wait ->
//   unpack(faces) -> finish_step()
// The interior (cells not next to a face) needs no halo; the boundary shell is updated
// after the halos arrive. Every cell gets the same update whatever the split.
#pragma once

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

class StencilBackend {
public:
    virtual ~StencilBackend() = default;
    virtual std::string name() const = 0;
    // The whole field with halos, i fastest (StencilGeometry::index).
    virtual void load(const std::vector<double>& field) = 0;

    // Host memory MPI sends from / receives into, face_cells values each.
    virtual FaceBufferView send_buffer(int face) = 0;
    virtual FaceBufferView receive_buffer(int face) = 0;
    // Boundary layers next to the faces in `faces` -> send buffers, complete on return.
    virtual void pack(const FaceMask& faces) = 0;
    // Starts the update of the interior (may return before it is done).
    virtual void start_interior() = 0;
    // Receive buffers -> halo layers beyond the faces in `faces`.
    virtual void unpack(const FaceMask& faces) = 0;
    // Updates the boundary shell, waits for everything, makes the new field current.
    virtual void finish_step() = 0;

    virtual std::vector<double> field() const = 0;
    // Test-only planted fault: overwrite one cell (local indices, 1-based interior).
    virtual void corrupt(std::size_t i, std::size_t j, std::size_t k) = 0;
};

using LocalExtent = std::array<std::size_t, 3>;
std::unique_ptr<StencilBackend> make_host_stencil(const LocalExtent& local);              // throws without Kokkos
std::unique_ptr<StencilBackend> make_cuda_stencil(const LocalExtent& local, int device);  // throws without CUDA

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

}  // namespace shakedown::kernels
