// The device z-march functors (one cell, and two adjacent x cells per work item) called on the
// host over the padded device layout: every cell of the box gets the 7-point update bit for bit,
// and no cell outside it is written, for boxes of odd and even x extents, boxes starting past a
// line start (the interior next to an x neighbour, a one-cell-thin x slab) and z chunks that do
// not divide the box. The work items are the ones the Kokkos backend's policies launch.
#include "kernels/stencil/stencil_backend.hpp"
#include "kernels/stencil/stencil_device_layout.hpp"
#include "kernels/stencil/stencil_march.hpp"
#include "kernels/stencil/stencil_update.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace shakedown::kernels {
namespace {

constexpr double untouched = -7.5;

struct Fields {
    DeviceLayout layout;
    std::vector<double> u, v;  // allocations; cell (0,0,0) at DeviceLayout::lead
    const double* cells_u() const { return u.data() + DeviceLayout::lead; }
    double* cells_v() { return v.data() + DeviceLayout::lead; }
};

Fields random_fields(std::size_t nx, std::size_t ny, std::size_t nz) {
    Fields f{padded_layout(nx, ny, nz), {}, {}};
    std::mt19937_64 generator(nx * 131 + ny * 17 + nz);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    f.u.resize(static_cast<std::size_t>(f.layout.allocation()));
    for (double& x : f.u) x = value(generator);
    f.v.assign(f.u.size(), untouched);
    return f;
}

void expect_updated_exactly(const Fields& f, const CellBox& box, const char* what) {
    const double* u = f.cells_u();
    const double* v = f.v.data() + DeviceLayout::lead;
    const auto row = f.layout.row, plane = f.layout.plane;
    for (std::int64_t c = -DeviceLayout::lead; c + DeviceLayout::lead < static_cast<std::int64_t>(f.v.size()); ++c) {
        const std::int64_t k = c >= 0 ? c / plane : -1, j = c >= 0 ? (c % plane) / row : -1, i = c >= 0 ? c % row : -1;
        const bool inside = c >= 0 && i >= static_cast<std::int64_t>(box.lo[0]) && i < static_cast<std::int64_t>(box.hi[0]) &&
                            j >= static_cast<std::int64_t>(box.lo[1]) && j < static_cast<std::int64_t>(box.hi[1]) &&
                            k >= static_cast<std::int64_t>(box.lo[2]) && k < static_cast<std::int64_t>(box.hi[2]);
        if (!inside) {
            ASSERT_EQ(v[c], untouched) << what << ": wrote outside the box at " << i << "," << j << "," << k;
            continue;
        }
        const double expected = jacobi_update(u[c], u[c - 1], u[c + 1], u[c - row], u[c + row], u[c - plane], u[c + plane]);
        std::uint64_t want = 0, got = 0;
        std::memcpy(&want, &expected, sizeof want);
        std::memcpy(&got, &v[c], sizeof got);
        ASSERT_EQ(got, want) << what << ": cell " << i << "," << j << "," << k;
    }
}

// What KokkosStencil::march launches: x from the line start at or before lo[0].
int line_start(const CellBox& box) { return static_cast<int>(box.lo[0] - (box.lo[0] - 1) % 16); }

void run_cells(Fields& f, const CellBox& box, int chunk) {
    const StencilMarch<int> step{f.cells_u(), f.cells_v(), static_cast<int>(f.layout.row), static_cast<int>(f.layout.plane),
                                 static_cast<int>(box.lo[0]), static_cast<int>(box.lo[2]), static_cast<int>(box.hi[2]), chunk};
    const int chunks = static_cast<int>((box.hi[2] - box.lo[2] + chunk - 1) / chunk);
    for (int z = 0; z < chunks; ++z)
        for (int j = static_cast<int>(box.lo[1]); j < static_cast<int>(box.hi[1]); ++j)
            for (int i = line_start(box); i < static_cast<int>(box.hi[0]); ++i) step(i, j, z);
}

void run_pairs(Fields& f, const CellBox& box, int chunk) {
    const StencilMarchPairs<int> step{f.cells_u(), f.cells_v(), static_cast<int>(f.layout.row), static_cast<int>(f.layout.plane),
                                      static_cast<int>(box.lo[0]), static_cast<int>(box.hi[0]), static_cast<int>(box.lo[2]),
                                      static_cast<int>(box.hi[2]), chunk};
    const int chunks = static_cast<int>((box.hi[2] - box.lo[2] + chunk - 1) / chunk);
    for (int z = 0; z < chunks; ++z)
        for (int j = static_cast<int>(box.lo[1]); j < static_cast<int>(box.hi[1]); ++j)
            for (int p = (line_start(box) - 1) / 2; p < static_cast<int>(box.hi[0]) / 2; ++p) step(p, j, z);
}

struct Case {
    LocalExtent local;
    CellBox box;
    int chunk;
};

std::vector<Case> cases() {
    return {
        {{16, 4, 5}, {{1, 1, 1}, {17, 5, 6}}, 8},    // whole interior, even x extent, one chunk
        {{13, 3, 9}, {{1, 1, 1}, {14, 4, 10}}, 4},   // odd x extent: the last pair has one cell
        {{13, 3, 9}, {{2, 1, 1}, {13, 4, 10}}, 3},   // interior next to x neighbours: starts at 2
        {{40, 2, 3}, {{40, 1, 1}, {41, 3, 4}}, 8},   // a one-cell-thin x slab at the high face
        {{40, 2, 3}, {{1, 1, 1}, {2, 3, 4}}, 1},     // a one-cell-thin x slab at the low face
        {{35, 5, 2}, {{18, 2, 1}, {34, 4, 3}}, 2},   // a box starting past a line start
    };
}

TEST(StencilMarchFunctors, OneCellPerItemUpdatesExactlyTheBox) {
    for (const Case& c : cases()) {
        Fields f = random_fields(c.local[0], c.local[1], c.local[2]);
        run_cells(f, c.box, c.chunk);
        expect_updated_exactly(f, c.box, "one cell");
    }
}

TEST(StencilMarchFunctors, PairsPerItemUpdateExactlyTheBoxBitForBit) {
    for (const Case& c : cases()) {
        Fields f = random_fields(c.local[0], c.local[1], c.local[2]);
        run_pairs(f, c.box, c.chunk);
        expect_updated_exactly(f, c.box, "pairs");
    }
}

// The pairs' alignment rests on the layout: an odd cell starts 16 bytes, cell 1 a 128-byte line.
TEST(StencilMarchFunctors, OddCellsOfThePaddedLayoutAre16ByteAligned) {
    for (std::size_t nx : {1u, 13u, 16u, 511u}) {
        const DeviceLayout layout = padded_layout(nx, 3, 3);
        EXPECT_EQ((DeviceLayout::lead + layout.index(1, 0, 0)) % 16, 0);
        EXPECT_EQ(layout.row % 2, 0);
        EXPECT_EQ(layout.plane % 2, 0);
    }
}

}  // namespace
}  // namespace shakedown::kernels
