// The stencil through Kokkos, one implementation for two execution spaces: the fields in the
// space's memory, the update as a 3-D MDRange, faces packed in that space and copied to the
// host buffers MPI uses. The host backend runs in Kokkos' host space (also when Kokkos has
// CUDA); `backend: kokkos` on a GPU rank runs in Kokkos::Cuda (halos staged through the host).
#include "kernels/stencil/stencil_backend.hpp"
#include "kernels/stencil/stencil_update.hpp"

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>
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
    using Field = Kokkos::View<double***, Kokkos::LayoutLeft, Memory>;
    using FaceBuffer = Kokkos::View<double*, Memory>;
    using Cells = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>>;
    using FaceCells = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2, Kokkos::Iterate::Left, Kokkos::Iterate::Left>>;

    explicit KokkosStencil(const LocalExtent& local)
        : local_(local), u_("stencil_u", local[0] + 2, local[1] + 2, local[2] + 2),
          v_("stencil_v", local[0] + 2, local[1] + 2, local[2] + 2) {
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
        const ConstHostField host(field.data(), local_[0] + 2, local_[1] + 2, local_[2] + 2);
        Kokkos::deep_copy(u_, host);
        Kokkos::deep_copy(v_, host);  // the halos of both fields start as the boundary values
    }

    FaceBufferView send_buffer(int face) override { return {send_[face].data(), send_[face].size()}; }
    FaceBufferView receive_buffer(int face) override { return {receive_[face].data(), receive_[face].size()}; }

    void pack(const FaceMask& faces) override {
        for (int face = 0; face < 6; ++face) {
            if (!faces[face]) continue;
            copy_face(face, /*into_buffer=*/true);
            Kokkos::deep_copy(HostBuffer(send_[face].data(), send_[face].size()), faces_[face]);
        }
    }

    void start_interior() override { update(interior_box(local_)); }

    void unpack(const FaceMask& faces) override {
        for (int face = 0; face < 6; ++face) {
            if (!faces[face]) continue;
            Kokkos::deep_copy(faces_[face], HostBuffer(receive_[face].data(), receive_[face].size()));
            copy_face(face, /*into_buffer=*/false);
        }
    }

    void finish_step() override {
        for (const CellBox& box : shell_boxes(local_)) update(box);
        Exec().fence();
        std::swap(u_, v_);
    }

    std::vector<double> field() const override {
        std::vector<double> out((local_[0] + 2) * (local_[1] + 2) * (local_[2] + 2));
        Kokkos::View<double***, Kokkos::LayoutLeft, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> host(
            out.data(), local_[0] + 2, local_[1] + 2, local_[2] + 2);
        Kokkos::deep_copy(host, u_);
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
        const Field u = u_, v = v_;
        Kokkos::parallel_for(
            "stencil_step", Cells({box.lo[0], box.lo[1], box.lo[2]}, {box.hi[0], box.hi[1], box.hi[2]}),
            KOKKOS_LAMBDA(const std::size_t i, const std::size_t j, const std::size_t k) {
                v(i, j, k) = jacobi_update(u(i, j, k), u(i - 1, j, k), u(i + 1, j, k), u(i, j - 1, k), u(i, j + 1, k),
                                           u(i, j, k - 1), u(i, j, k + 1));
            });
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
    LocalExtent local_;
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
