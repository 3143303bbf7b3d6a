// The interior box and the six shell slabs cover every cell exactly once, for any extent
// (including blocks only one or two cells thick, where the interior is empty).
#include "kernels/stencil/stencil_backend.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace shakedown::kernels {
namespace {

TEST(StencilBoxes, InteriorAndShellCoverEveryCellOnce) {
    for (const LocalExtent local : {LocalExtent{1, 1, 1}, LocalExtent{2, 3, 1}, LocalExtent{5, 4, 7}, LocalExtent{12, 2, 23}}) {
        std::vector<int> hits((local[0] + 2) * (local[1] + 2) * (local[2] + 2), 0);
        auto mark = [&](const CellBox& box) {
            if (box.empty()) return;
            for (std::size_t k = box.lo[2]; k < box.hi[2]; ++k)
                for (std::size_t j = box.lo[1]; j < box.hi[1]; ++j)
                    for (std::size_t i = box.lo[0]; i < box.hi[0]; ++i) ++hits[i + (local[0] + 2) * (j + (local[1] + 2) * k)];
        };
        mark(interior_box(local));
        for (const CellBox& box : shell_boxes(local)) mark(box);
        for (std::size_t k = 0; k < local[2] + 2; ++k)
            for (std::size_t j = 0; j < local[1] + 2; ++j)
                for (std::size_t i = 0; i < local[0] + 2; ++i) {
                    const bool interior = i >= 1 && i <= local[0] && j >= 1 && j <= local[1] && k >= 1 && k <= local[2];
                    EXPECT_EQ(hits[i + (local[0] + 2) * (j + (local[1] + 2) * k)], interior ? 1 : 0)
                        << local[0] << "x" << local[1] << "x" << local[2] << " cell " << i << "," << j << "," << k;
                }
    }
}

// Every set of neighbour faces: still every cell exactly once, the interior reads no halo a
// neighbour sends, and slabs exist only next to neighbour faces.
TEST(StencilBoxes, FaceAwareBoxesCoverEveryCellOnceAndReadNoNeighbourHaloEarly) {
    for (const LocalExtent local : {LocalExtent{1, 1, 1}, LocalExtent{2, 3, 1}, LocalExtent{5, 4, 7}})
        for (unsigned bits = 0; bits < 64; ++bits) {
            FaceMask neighbours{};
            for (int face = 0; face < 6; ++face) neighbours[face] = (bits >> face) & 1u;
            std::vector<int> hits((local[0] + 2) * (local[1] + 2) * (local[2] + 2), 0);
            auto mark = [&](const CellBox& box) {
                if (box.empty()) return;
                for (std::size_t k = box.lo[2]; k < box.hi[2]; ++k)
                    for (std::size_t j = box.lo[1]; j < box.hi[1]; ++j)
                        for (std::size_t i = box.lo[0]; i < box.hi[0]; ++i) ++hits[i + (local[0] + 2) * (j + (local[1] + 2) * k)];
            };
            const CellBox inner = interior_box(local, neighbours);
            mark(inner);
            const auto shells = shell_boxes(local, neighbours);
            for (const CellBox& box : shells) mark(box);
            std::size_t covered = 0;
            for (const int h : hits) {
                EXPECT_LE(h, 1) << "mask " << bits;
                covered += static_cast<std::size_t>(h);
            }
            EXPECT_EQ(covered, local[0] * local[1] * local[2]) << "mask " << bits;
            for (int d = 0; d < 3; ++d) {
                if (!inner.empty() && neighbours[2 * d]) EXPECT_GE(inner.lo[d], 2u) << "mask " << bits;
                if (!inner.empty() && neighbours[2 * d + 1]) EXPECT_LE(inner.hi[d], local[d]) << "mask " << bits;
                if (!neighbours[2 * d]) EXPECT_TRUE(shells[2 * d].empty()) << "mask " << bits;
                if (!neighbours[2 * d + 1]) EXPECT_TRUE(shells[2 * d + 1].empty()) << "mask " << bits;
            }
        }
    // No neighbour: the interior is the whole block.
    const CellBox alone = interior_box({8, 9, 10}, FaceMask{});
    for (int d = 0; d < 3; ++d) {
        EXPECT_EQ(alone.lo[d], 1u);
        EXPECT_EQ(alone.hi[d], (LocalExtent{8, 9, 10}[d] + 1));
    }
}

TEST(StencilBoxes, InteriorTouchesNoHalo) {
    const CellBox inner = interior_box({10, 10, 10});
    for (int d = 0; d < 3; ++d) {
        EXPECT_EQ(inner.lo[d], 2u);  // reads cell lo-1 = 1, never the halo at 0
        EXPECT_EQ(inner.hi[d], 10u); // reads cell hi = 10, never the halo at 11
    }
}

}  // namespace
}  // namespace shakedown::kernels
