// Where a stencil field's cells live in GPU memory, shared by the native CUDA backend
// (stencil_cuda.cu) and the Kokkos backend on a device (stencil_host_kokkos.cpp): rows padded
// to a multiple of 16 doubles and the field starting 15 elements into its allocation, so that
// cell i = 1 of every row starts a 128-byte line and a warp's 32 cells are whole lines (the
// public layout, rows of nx + 2, stays on the host: load() and field() copy with a pitch).
#pragma once

#include "kernels/stencil/stencil_update.hpp"

#include <cstddef>
#include <cstdint>

namespace shakedown::kernels {

struct DeviceLayout {
    std::int64_t nx, ny, nz;  // interior cells
    std::int64_t row, plane;  // pitches in elements
    static constexpr std::int64_t lead = 15;
    std::int64_t allocation() const { return lead + plane * (nz + 2) + 1; }
    SHAKEDOWN_HOST_DEVICE std::int64_t index(std::int64_t i, std::int64_t j, std::int64_t k) const {
        return i + row * j + plane * k;
    }
};

inline DeviceLayout padded_layout(std::size_t nx, std::size_t ny, std::size_t nz) {
    DeviceLayout layout{};
    layout.nx = static_cast<std::int64_t>(nx);
    layout.ny = static_cast<std::int64_t>(ny);
    layout.nz = static_cast<std::int64_t>(nz);
    layout.row = (layout.nx + 2 + 15) / 16 * 16;
    layout.plane = layout.row * (layout.ny + 2);
    return layout;
}

}  // namespace shakedown::kernels
