#include "kernels/stencil/stencil_backend.hpp"

#include <algorithm>

namespace shakedown::kernels {

CellBox interior_box(const LocalExtent& local) { return interior_box(local, FaceMask{true, true, true, true, true, true}); }

std::array<CellBox, 6> shell_boxes(const LocalExtent& local) {
    return shell_boxes(local, FaceMask{true, true, true, true, true, true});
}

CellBox interior_box(const LocalExtent& local, const FaceMask& neighbours) {
    // Per dimension the cells split into [1, lo) next to the low face, [lo, hi) inside and
    // [hi, local+1) next to the high face; a face without a neighbour keeps no layer back.
    CellBox box;
    for (int d = 0; d < 3; ++d) {
        box.lo[d] = neighbours[2 * d] ? std::min<std::size_t>(2, local[d] + 1) : 1;
        box.hi[d] = std::max(box.lo[d], neighbours[2 * d + 1] ? local[d] : local[d] + 1);
    }
    return box;
}

std::array<CellBox, 6> shell_boxes(const LocalExtent& local, const FaceMask& neighbours) {
    // x slabs take full y and z; y slabs the x interior and full z; z slabs the x and y
    // interiors, so the slabs do not overlap.
    std::array<CellBox, 6> boxes{};
    const CellBox inner = interior_box(local, neighbours);
    for (int d = 0; d < 3; ++d)
        for (int side = 0; side < 2; ++side) {
            CellBox& box = boxes[2 * d + side];
            for (int e = 0; e < 3; ++e) {
                if (e < d) { box.lo[e] = inner.lo[e]; box.hi[e] = inner.hi[e]; }
                else { box.lo[e] = 1; box.hi[e] = local[e] + 1; }
            }
            box.lo[d] = side == 0 ? 1 : inner.hi[d];
            box.hi[d] = side == 0 ? inner.lo[d] : local[d] + 1;
        }
    return boxes;
}

}  // namespace shakedown::kernels
