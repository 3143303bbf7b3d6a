// The host backend, written once over a loop policy: cg_host_kokkos.cpp runs it through Kokkos
// on Kokkos::DefaultHostExecutionSpace (host code even where Kokkos also has a GPU backend: the
// GPU path is cg_cuda.cu), cg_host_plain.cpp through plain loops where Kokkos is not built.
// Vectors are host memory (std::vector), which every host execution space reads.
//
// A Loops policy provides
//   static std::string name();
//   template <class F> static void cells(const CellBox& box, const F& f);        // f(i, j, k)
//   template <class F> static double sum(const CellBox& box, const F& f);         // sum of f(i, j, k)
// with i, j, k as std::int64_t local indices.
#pragma once

#include "kernels/cg/cg_backend.hpp"
#include "kernels/cg/cg_math.hpp"

#include <optional>
#include <string>
#include <vector>

namespace shakedown::kernels::cg {

template <class Loops>
class HostCg final : public CgBackend {
public:
    explicit HostCg(const LocalExtent& local)
        : local_(local), layout_(make_layout(local)), cells_(interior_box(local, FaceMask{})) {
        const auto size = static_cast<std::size_t>(layout_.size());
        for (auto* vector : {&solution_, &b_, &x_, &r_, &p_, &q_}) vector->assign(size, 0.0);
        for (int face = 0; face < 6; ++face) {
            send_[face].assign(static_cast<std::size_t>(layout_.face_cells(face)), 0.0);
            receive_[face].assign(static_cast<std::size_t>(layout_.face_cells(face)), 0.0);
        }
    }

    std::string name() const override { return Loops::name(); }

    void load(const std::vector<double>& field) override {
        solution_ = field;
        p_ = field;  // halos: the zero boundary
    }

    FaceBufferView send_buffer(int face) override { return {send_[face].data(), send_[face].size()}; }
    FaceBufferView receive_buffer(int face) override { return {receive_[face].data(), receive_[face].size()}; }

    void pack(const FaceMask& faces) override {
        if (restore_) {  // a planted boundary value lasts one step
            p_[static_cast<std::size_t>(*restore_)] = 0.0;
            restore_.reset();
        }
        bool any = false;
        for (int face = 0; face < 6; ++face) {
            if (!faces[face]) continue;
            any = true;
            copy_face(face, /*to_halo=*/false);
        }
        if (pending_ && !any) {  // no neighbour: the boundary value beyond the low x face
            const std::int64_t at = layout_.face_index(0, layout_.ny / 2 + 1, layout_.nz / 2 + 1, /*halo=*/true);
            p_[static_cast<std::size_t>(at)] += *pending_;
            restore_ = at;
            pending_.reset();
        }
    }

    void start_interior() override { spmv(interior_box(local_)); }

    void unpack(const FaceMask& faces) override {
        for (int face = 0; face < 6; ++face) {
            if (!faces[face]) continue;
            copy_face(face, /*to_halo=*/true);
            if (pending_) {  // the first received face: one value off, as if corrupted in flight
                const std::int64_t at =
                    layout_.face_index(face, layout_.face_a(face) / 2 + 1, layout_.face_b(face) / 2 + 1, /*halo=*/true);
                p_[static_cast<std::size_t>(at)] += *pending_;
                pending_.reset();
            }
        }
    }

    void finish_step() override {
        for (const CellBox& box : shell_boxes(local_)) spmv(box);
    }

    std::vector<double> field() const override { return x_; }
    void corrupt(std::size_t i, std::size_t j, std::size_t k) override {
        double& value = x_[static_cast<std::size_t>(layout_.index(static_cast<std::int64_t>(i), static_cast<std::int64_t>(j),
                                                                  static_cast<std::int64_t>(k)))];
        value = -2.0 * value - 1.0;
    }

    void take_rhs() override {
        double* b = b_.data();
        const double* q = q_.data();
        const FieldLayout l = layout_;
        Loops::cells(cells_, [=](std::int64_t i, std::int64_t j, std::int64_t k) { b[l.index(i, j, k)] = q[l.index(i, j, k)]; });
    }

    double start_solve() override {
        double *x = x_.data(), *r = r_.data(), *p = p_.data();
        const double* b = b_.data();
        const FieldLayout l = layout_;
        return Loops::sum(cells_, [=](std::int64_t i, std::int64_t j, std::int64_t k) {
            const std::int64_t c = l.index(i, j, k);
            x[c] = 0.0;
            r[c] = b[c];
            p[c] = b[c];
            return b[c] * b[c];
        });
    }

    double dot_pq() override {
        const double *p = p_.data(), *q = q_.data();
        const FieldLayout l = layout_;
        return Loops::sum(cells_, [=](std::int64_t i, std::int64_t j, std::int64_t k) {
            const std::int64_t c = l.index(i, j, k);
            return p[c] * q[c];
        });
    }

    double update_xr(double alpha) override {
        double *x = x_.data(), *r = r_.data();
        const double *p = p_.data(), *q = q_.data();
        const FieldLayout l = layout_;
        return Loops::sum(cells_, [=](std::int64_t i, std::int64_t j, std::int64_t k) {
            const std::int64_t c = l.index(i, j, k);
            x[c] += alpha * p[c];
            const double next = r[c] - alpha * q[c];
            r[c] = next;
            return next * next;
        });
    }

    void update_p(double beta) override {
        double* p = p_.data();
        const double* r = r_.data();
        const FieldLayout l = layout_;
        Loops::cells(cells_, [=](std::int64_t i, std::int64_t j, std::int64_t k) {
            const std::int64_t c = l.index(i, j, k);
            p[c] = r[c] + beta * p[c];
        });
    }

    void p_from_x() override {
        double* p = p_.data();
        const double* x = x_.data();
        const FieldLayout l = layout_;
        Loops::cells(cells_, [=](std::int64_t i, std::int64_t j, std::int64_t k) { p[l.index(i, j, k)] = x[l.index(i, j, k)]; });
    }

    std::array<double, 2> residual_sums() override {
        const double *b = b_.data(), *q = q_.data();
        const FieldLayout l = layout_;
        const double residual = Loops::sum(cells_, [=](std::int64_t i, std::int64_t j, std::int64_t k) {
            const std::int64_t c = l.index(i, j, k);
            return (b[c] - q[c]) * (b[c] - q[c]);
        });
        const double rhs = Loops::sum(cells_, [=](std::int64_t i, std::int64_t j, std::int64_t k) {
            const std::int64_t c = l.index(i, j, k);
            return b[c] * b[c];
        });
        return {residual, rhs};
    }

    std::array<double, 2> error_sums() override {
        const double *x = x_.data(), *s = solution_.data();
        const FieldLayout l = layout_;
        const double error = Loops::sum(cells_, [=](std::int64_t i, std::int64_t j, std::int64_t k) {
            const std::int64_t c = l.index(i, j, k);
            return (x[c] - s[c]) * (x[c] - s[c]);
        });
        const double norm = Loops::sum(cells_, [=](std::int64_t i, std::int64_t j, std::int64_t k) {
            const std::int64_t c = l.index(i, j, k);
            return s[c] * s[c];
        });
        return {error, norm};
    }

    void corrupt_next_halo(double amount) override { pending_ = amount; }

private:
    // q = A p on `box`; every cell of the whole block in the interior and shell passes.
    void spmv(const CellBox& box) {
        if (box.empty()) return;
        const double* p = p_.data();
        double* q = q_.data();
        const FieldLayout l = layout_;
        const std::int64_t sx = 1, sy = l.nx + 2, sz = (l.nx + 2) * (l.ny + 2);
        Loops::cells(box, [=](std::int64_t i, std::int64_t j, std::int64_t k) {
            const std::int64_t c = l.index(i, j, k);
            q[c] = apply_laplacian(p[c], p[c - sx], p[c + sx], p[c - sy], p[c + sy], p[c - sz], p[c + sz]);
        });
    }

    // The boundary layer of p -> the send buffer, or the receive buffer -> p's halo layer.
    void copy_face(int face, bool to_halo) {
        const FieldLayout l = layout_;
        const std::int64_t na = l.face_a(face);
        for (std::int64_t b = 1; b <= l.face_b(face); ++b)
            for (std::int64_t a = 1; a <= na; ++a) {
                const auto slot = static_cast<std::size_t>((a - 1) + na * (b - 1));
                const auto cell = static_cast<std::size_t>(l.face_index(face, a, b, to_halo));
                if (to_halo)
                    p_[cell] = receive_[face][slot];
                else
                    send_[face][slot] = p_[cell];
            }
    }

    LocalExtent local_;
    FieldLayout layout_;
    CellBox cells_;  // every cell of this rank's block
    std::vector<double> solution_, b_, x_, r_, p_, q_;
    std::array<std::vector<double>, 6> send_, receive_;
    std::optional<double> pending_;        // the planted fault, until a step takes it
    std::optional<std::int64_t> restore_;  // a planted boundary value to zero again
};

}  // namespace shakedown::kernels::cg
