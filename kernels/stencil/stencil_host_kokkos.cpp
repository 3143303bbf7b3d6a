// The stencil through Kokkos, one implementation for two execution spaces, faces packed in
// that space and copied to the host buffers MPI uses. The host backend runs in Kokkos' host
// space (also when Kokkos has CUDA), the fields as LayoutLeft views and the update as a 3-D
// MDRange. `backend: kokkos` on a GPU rank runs in Kokkos::Cuda (halos staged through the
// host) with the native backend's device layout (stencil_device_layout.hpp: padded rows, cell
// 1 of a row on a 128-byte line) as strided views over one allocation per field, and the
// update as the z-march (stencil_march.hpp) over an MDRange of (x, y, z chunk).
#include "kernels/stencil/stencil_backend.hpp"
#include "kernels/stencil/stencil_device_layout.hpp"
#include "kernels/stencil/stencil_march.hpp"
#include "kernels/stencil/stencil_update.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace shakedown::kernels {
namespace {

using HostBuffer = Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
using ConstHostField = Kokkos::View<const double***, Kokkos::LayoutLeft, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

// The cell (i, j, k) at position (a, b) of the layer `layer` across dimension d.
KOKKOS_INLINE_FUNCTION void face_cell(int d, std::size_t layer, std::size_t a, std::size_t b, std::size_t& i,
                                      std::size_t& j, std::size_t& k) {
    if (d == 0) { i = layer; j = a; k = b; }
    else if (d == 1) { j = layer; k = a; i = b; }
    else { k = layer; i = a; j = b; }
}

// The member functions that hold device lambdas are public: nvcc refuses extended lambdas in
// private or protected member functions.
template <class Exec>
class KokkosStencil final : public StencilBackend {
public:
    using Memory = typename Exec::memory_space;
    static constexpr bool on_device = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, Memory>::accessible;
    using Storage = Kokkos::View<double*, Memory>;
    using Field = std::conditional_t<on_device, Kokkos::View<double***, Kokkos::LayoutStride, Memory, Kokkos::MemoryUnmanaged>,
                                     Kokkos::View<double***, Kokkos::LayoutLeft, Memory>>;
    using FaceBuffer = Kokkos::View<double*, Memory>;
    using Cells = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>>;
    using MarchCells = Kokkos::MDRangePolicy<Exec, Kokkos::IndexType<int>, Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>>;
    using FaceCells = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2, Kokkos::Iterate::Left, Kokkos::Iterate::Left>>;

    explicit KokkosStencil(const LocalExtent& local)
        : local_(local), layout_(padded_layout(local[0], local[1], local[2])) {
        if constexpr (on_device) {
            u_store_ = Storage("stencil_u", static_cast<std::size_t>(layout_.allocation()));
            v_store_ = Storage("stencil_v", static_cast<std::size_t>(layout_.allocation()));
            u_ = strided(u_store_);
            v_ = strided(v_store_);
        } else {
            u_ = Field("stencil_u", local[0] + 2, local[1] + 2, local[2] + 2);
            v_ = Field("stencil_v", local[0] + 2, local[1] + 2, local[2] + 2);
        }
        for (int face = 0; face < 6; ++face) {
            const int d = face / 2;
            const std::size_t cells = local_[(d + 1) % 3] * local_[(d + 2) % 3];
            faces_[face] = FaceBuffer("stencil_face", cells);
            send_[face].resize(cells);
            receive_[face].resize(cells);
        }
    }

    std::string name() const override { return std::string("kokkos-") + Exec::name(); }

    void load(const std::vector<double>& field) override {
        if constexpr (on_device) {
            // The public layout row by row into the padded image, then one contiguous copy.
            std::vector<double> image(static_cast<std::size_t>(layout_.allocation()), 0.0);
            const std::size_t width = local_[0] + 2;
            for (std::size_t line = 0; line < (local_[1] + 2) * (local_[2] + 2); ++line)
                std::copy_n(field.begin() + static_cast<std::ptrdiff_t>(line * width), width,
                            image.begin() + DeviceLayout::lead + static_cast<std::ptrdiff_t>(line) * layout_.row);
            const Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> host(image.data(), image.size());
            Kokkos::deep_copy(u_store_, host);
            Kokkos::deep_copy(v_store_, host);  // the halos of both fields start as the boundary values
        } else {
            const ConstHostField host(field.data(), local_[0] + 2, local_[1] + 2, local_[2] + 2);
            Kokkos::deep_copy(u_, host);
            Kokkos::deep_copy(v_, host);
        }
    }

    FaceBufferView send_buffer(int face) override { return {send_[face].data(), send_[face].size()}; }
    FaceBufferView receive_buffer(int face) override { return {receive_[face].data(), receive_[face].size()}; }

    void pack(const FaceMask& faces) override {
        neighbours_ = faces;
        for (int face = 0; face < 6; ++face) {
            if (!faces[face]) continue;
            copy_face(face, /*into_buffer=*/true);
            Kokkos::deep_copy(HostBuffer(send_[face].data(), send_[face].size()), faces_[face]);
        }
    }

    // The interior reaches every face without a neighbour (its halo is the fixed boundary), so
    // a rank alone updates its block in one launch, as the native backend does.
    void start_interior() override { update(interior_box(local_, neighbours_)); }

    void unpack(const FaceMask& faces) override {
        for (int face = 0; face < 6; ++face) {
            if (!faces[face]) continue;
            Kokkos::deep_copy(faces_[face], HostBuffer(receive_[face].data(), receive_[face].size()));
            copy_face(face, /*into_buffer=*/false);
        }
    }

    void finish_step() override {
        for (const CellBox& box : shell_boxes(local_, neighbours_)) update(box);
        Exec().fence();
        std::swap(u_, v_);
        std::swap(u_store_, v_store_);
    }

    std::vector<double> field() const override {
        std::vector<double> out((local_[0] + 2) * (local_[1] + 2) * (local_[2] + 2));
        if constexpr (on_device) {
            std::vector<double> image(static_cast<std::size_t>(layout_.allocation()));
            Kokkos::deep_copy(Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(image.data(), image.size()),
                              u_store_);
            const std::size_t width = local_[0] + 2;
            for (std::size_t line = 0; line < (local_[1] + 2) * (local_[2] + 2); ++line)
                std::copy_n(image.begin() + DeviceLayout::lead + static_cast<std::ptrdiff_t>(line) * layout_.row, width,
                            out.begin() + static_cast<std::ptrdiff_t>(line * width));
        } else {
            Kokkos::View<double***, Kokkos::LayoutLeft, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> host(
                out.data(), local_[0] + 2, local_[1] + 2, local_[2] + 2);
            Kokkos::deep_copy(host, u_);
        }
        return out;
    }

    void corrupt(std::size_t i, std::size_t j, std::size_t k) override {
        const Field u = u_;
        Kokkos::parallel_for("stencil_corrupt", Kokkos::RangePolicy<Exec>(0, 1),
                             KOKKOS_LAMBDA(int) { u(i, j, k) = -2.0 * u(i, j, k) - 1.0; });
        Exec().fence();
    }

    void update(const CellBox& box) {
        if (box.empty()) return;
        if constexpr (on_device) {
            if (layout_.allocation() < std::numeric_limits<int>::max())
                march<int>(box);
            else
                march<std::int64_t>(box);
        } else {
            const Field u = u_, v = v_;
            Kokkos::parallel_for(
                "stencil_step", Cells({box.lo[0], box.lo[1], box.lo[2]}, {box.hi[0], box.hi[1], box.hi[2]}),
                KOKKOS_LAMBDA(const std::size_t i, const std::size_t j, const std::size_t k) {
                    v(i, j, k) = jacobi_update(u(i, j, k), u(i - 1, j, k), u(i + 1, j, k), u(i, j - 1, k),
                                               u(i, j + 1, k), u(i, j, k - 1), u(i, j, k + 1));
                });
        }
    }

    // The shape asked for (gpu_block_x/y, gpu_z_chunk, gpu_cells_per_thread), as the native
    // backend takes it: block_x x block_y work items per tile, each one cell or one pair of cells.
    void set_gpu_shape(const GpuStencilShape& shape) override { shape_ = shape; }

    template <class Index>
    void march(const CellBox& box) {
        const int chunk = shape_.z_chunk > 0 ? shape_.z_chunk : static_cast<int>(box.hi[2] - box.lo[2]);
        const int chunks = static_cast<int>((box.hi[2] - box.lo[2] + chunk - 1) / chunk);
        // x from the line start at or before lo[0] (cells 1 + 16 m start 128-byte lines): a slab
        // one cell thin in x launches one tile per row, not a whole row of idle threads.
        const int x_begin = static_cast<int>(box.lo[0] - (box.lo[0] - 1) % 16);
        const int lo_y = static_cast<int>(box.lo[1]), hi_y = static_cast<int>(box.hi[1]);
        const Index row = static_cast<Index>(layout_.row), plane = static_cast<Index>(layout_.plane);
        if (shape_.cells_per_thread == 2) {
            // Pair p holds cells 1 + 2p and 2 + 2p: from x_begin's pair up to the one holding hi[0] - 1.
            const StencilMarchPairs<Index> step{u_.data(), v_.data(), row, plane, static_cast<int>(box.lo[0]),
                                                static_cast<int>(box.hi[0]), static_cast<int>(box.lo[2]),
                                                static_cast<int>(box.hi[2]), chunk};
            Kokkos::parallel_for("stencil_march_pairs",
                                 MarchCells({(x_begin - 1) / 2, lo_y, 0}, {static_cast<int>(box.hi[0]) / 2, hi_y, chunks},
                                            {shape_.block_x, shape_.block_y, 1}),
                                 step);
            return;
        }
        const StencilMarch<Index> step{u_.data(), v_.data(), row, plane, static_cast<int>(box.lo[0]),
                                       static_cast<int>(box.lo[2]), static_cast<int>(box.hi[2]), chunk};
        Kokkos::parallel_for("stencil_march",
                             MarchCells({x_begin, lo_y, 0}, {static_cast<int>(box.hi[0]), hi_y, chunks},
                                        {shape_.block_x, shape_.block_y, 1}),
                             step);
    }

    void copy_face(int face, bool into_buffer) {
        const int d = face / 2;
        const bool high = face % 2 == 1;
        // Send the boundary layer of interior cells; receive into the halo layer beyond it.
        const std::size_t layer = into_buffer ? (high ? local_[d] : 1) : (high ? local_[d] + 1 : 0);
        const std::size_t extent_a = local_[(d + 1) % 3];
        const Field u = u_;
        const FaceBuffer buffer = faces_[face];
        Kokkos::parallel_for(
            "stencil_face", FaceCells({0, 0}, {extent_a, local_[(d + 2) % 3]}),
            KOKKOS_LAMBDA(const std::size_t a, const std::size_t b) {
                std::size_t i = 0, j = 0, k = 0;
                face_cell(d, layer, a + 1, b + 1, i, j, k);
                if (into_buffer)
                    buffer(a + extent_a * b) = u(i, j, k);
                else
                    u(i, j, k) = buffer(a + extent_a * b);
            });
        Exec().fence();
    }

private:
    // Cell (0, 0, 0) at DeviceLayout::lead of the allocation, strides 1, row, plane.
    Field strided(const Storage& storage) const {
        return Field(storage.data() + DeviceLayout::lead,
                     Kokkos::LayoutStride(local_[0] + 2, 1, local_[1] + 2, static_cast<std::size_t>(layout_.row),
                                          local_[2] + 2, static_cast<std::size_t>(layout_.plane)));
    }

    LocalExtent local_;
    FaceMask neighbours_{true, true, true, true, true, true};  // until pack() says otherwise
    DeviceLayout layout_;
    GpuStencilShape shape_;
    Storage u_store_, v_store_;  // on a device: the allocations u_ and v_ view; else empty
    Field u_, v_;
    std::array<FaceBuffer, 6> faces_;
    std::array<std::vector<double>, 6> send_, receive_;
};

}  // namespace

std::unique_ptr<StencilBackend> make_host_stencil(const LocalExtent& local) {
    return std::make_unique<KokkosStencil<Kokkos::DefaultHostExecutionSpace>>(local);
}

std::unique_ptr<StencilBackend> make_kokkos_device_stencil(const LocalExtent& local, int device) {
#if defined(KOKKOS_ENABLE_CUDA)
    if (Kokkos::Cuda().cuda_device() != device)
        throw std::runtime_error("stencil3d: Kokkos runs on CUDA device " + std::to_string(Kokkos::Cuda().cuda_device()) +
                                 ", this rank is bound to " + std::to_string(device));
    return std::make_unique<KokkosStencil<Kokkos::Cuda>>(local);
#else
    (void)local;
    (void)device;
    throw std::runtime_error("this Kokkos has no CUDA backend");
#endif
}

}  // namespace shakedown::kernels
