// Where the stencil runs: the host through Kokkos, or the bound GPU through CUDA. A backend
// owns the two fields (current and next, one halo layer each) on its memory; the halo
// exchange and the validation are shared and live on the host.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace shakedown::kernels {

class StencilBackend {
public:
    virtual ~StencilBackend() = default;
    virtual std::string name() const = 0;
    // The whole field with halos, i fastest (StencilGeometry::index).
    virtual void load(const std::vector<double>& field) = 0;
    // Copies the boundary layer of cells next to `face` into `buffer` (face_cells values).
    virtual void pack(int face, std::vector<double>& buffer) = 0;
    // Copies `buffer` into the halo layer beyond `face`.
    virtual void unpack(int face, const std::vector<double>& buffer) = 0;
    // One Jacobi step over the interior, to completion; the new field becomes current.
    virtual void step() = 0;
    virtual std::vector<double> field() const = 0;
    // Test-only planted fault: overwrite one cell (local indices, 1-based interior).
    virtual void corrupt(std::size_t i, std::size_t j, std::size_t k) = 0;
};

using LocalExtent = std::array<std::size_t, 3>;
std::unique_ptr<StencilBackend> make_host_stencil(const LocalExtent& local);              // throws without Kokkos
std::unique_ptr<StencilBackend> make_cuda_stencil(const LocalExtent& local, int device);  // throws without CUDA

}  // namespace shakedown::kernels
