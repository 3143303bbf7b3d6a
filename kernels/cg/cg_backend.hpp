// Where cg_fp64 runs: the host (Kokkos on the host execution space, or plain loops without
// Kokkos) or the bound GPU (CUDA). A backend owns the solver's vectors on its memory, each a
// field with one halo layer in StencilGeometry's layout (i fastest): x* (the manufactured
// solution), b = A x*, the iterate x, the residual r, the direction p and q = A p.
//
// It is a StencilBackend whose "step" is the matrix-free SpMV q = A p, so stencil3d's
// HaloExchange drives it unchanged: pack() sends p's boundary layers, unpack() fills p's halos,
// start_interior() and finish_step() compute q on the interior and the shell (on the device
// halo path, exchange() moves p's faces through NCCL). load() loads x* (and p := x*, so the
// next step computes A x*), field() returns x, corrupt() overwrites one cell of x.
//
// Reductions return this rank's part; the solver sums them over the ranks (MPI_Allreduce).
#pragma once

#include "kernels/stencil/stencil_backend.hpp"

#if defined(__CUDACC__)
#define SHAKEDOWN_CG_LAYOUT_HD __host__ __device__
#else
#define SHAKEDOWN_CG_LAYOUT_HD
#endif

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::kernels::cg {

// A field with one halo layer: cell (i, j, k), i, j, k in 0..n+1, at i + (nx+2) (j + (ny+2) k).
// A face's buffer lists its cells (a, b), a = 1..n_a fastest, over the two other dimensions in
// order (x face: j, k; y face: i, k; z face: i, j); the neighbour's same code reads it.
struct FieldLayout {
    std::int64_t nx = 0, ny = 0, nz = 0;

    SHAKEDOWN_CG_LAYOUT_HD std::int64_t index(std::int64_t i, std::int64_t j, std::int64_t k) const {
        return i + (nx + 2) * (j + (ny + 2) * k);
    }
    SHAKEDOWN_CG_LAYOUT_HD std::int64_t size() const { return (nx + 2) * (ny + 2) * (nz + 2); }
    SHAKEDOWN_CG_LAYOUT_HD std::int64_t extent(int d) const { return d == 0 ? nx : d == 1 ? ny : nz; }
    SHAKEDOWN_CG_LAYOUT_HD std::int64_t face_a(int face) const { return face / 2 == 0 ? ny : nx; }
    SHAKEDOWN_CG_LAYOUT_HD std::int64_t face_b(int face) const { return face / 2 == 2 ? ny : nz; }
    SHAKEDOWN_CG_LAYOUT_HD std::int64_t face_cells(int face) const { return face_a(face) * face_b(face); }
    // The field index of face cell (a, b), 1-based, in the layer across the face's dimension:
    // the boundary layer of interior cells (outgoing) or the halo layer beyond it.
    SHAKEDOWN_CG_LAYOUT_HD std::int64_t face_index(int face, std::int64_t a, std::int64_t b, bool halo) const {
        const int d = face / 2;
        const bool high = face % 2 == 1;
        const std::int64_t layer = halo ? (high ? extent(d) + 1 : 0) : (high ? extent(d) : 1);
        if (d == 0) return index(layer, a, b);
        if (d == 1) return index(a, layer, b);
        return index(a, b, layer);
    }
};

inline FieldLayout make_layout(const LocalExtent& local) {
    return {static_cast<std::int64_t>(local[0]), static_cast<std::int64_t>(local[1]), static_cast<std::int64_t>(local[2])};
}

class CgBackend : public StencilBackend {
public:
    // b := q (after a step on p = x*: b = A x*). Once per run.
    virtual void take_rhs() = 0;
    // x := 0, r := b, p := b; returns this rank's b.b.
    virtual double start_solve() = 0;
    // This rank's p.q (after a step: q = A p).
    virtual double dot_pq() = 0;
    // x += alpha p, r -= alpha q in one pass; returns this rank's r.r after it.
    virtual double update_xr(double alpha) = 0;
    // p := r + beta p.
    virtual void update_p(double beta) = 0;
    // p := x, so the next step computes A x (the true residual's product).
    virtual void p_from_x() = 0;
    // This rank's sum of (b - q)^2 and of b^2 (after a step on p = x).
    virtual std::array<double, 2> residual_sums() = 0;
    // This rank's sum of (x - x*)^2 and of x*^2.
    virtual std::array<double, 2> error_sums() = 0;
    // Test-only planted fault: the next step's SpMV reads one halo value of p off by `amount`:
    // a value received from a neighbour where there is one (the middle of the first such face),
    // else the boundary value beyond the low x face (restored before the step after).
    virtual void corrupt_next_halo(double amount) = 0;

    // Optional, for a rank alone in its communicator (no allreduce): the whole iteration with
    // its scalars (p.q, alpha, r.r, beta) kept on the backend, so the solver queues iterations
    // without waiting on them. Same arithmetic and stops as the host-driven loop: an iteration
    // whose p.q is not positive does nothing and stops the solve (a breakdown, not counted);
    // one whose r.r reaches the tolerance ends after its p update (counted).
    struct QueuedState {
        std::int64_t iterations = 0;  // done (exact)
        double rr = 0.0;              // r.r after the last one done
        bool stopped = false;         // a breakdown or the tolerance: later iterations do nothing
        bool breakdown = false;
        double breakdown_pq = 0.0;    // p.q of the iteration that broke down
    };
    virtual bool queues_iterations() const { return false; }
    // r.r := bb, no iteration done, nothing stopped; tolerance > 0: stop once sqrt(r.r/bb) <= it.
    virtual void queue_start(double /*bb*/, double /*tolerance*/) {}
    // After a step (q = A p): p.q, alpha = r.r/p.q, the x, r update with the new r.r,
    // beta = new/old r.r, p := r + beta p; queued only.
    virtual void queue_iteration() {}
    // Waits for the queued work and reads the state.
    virtual QueuedState queued_state() { return {}; }
    // Ends queued iterations: steps compute q again unconditionally.
    virtual void queue_end() {}

    // Diagnostic (kernel_timing; only the CUDA backend has one, the host backends return
    // nothing): `iterations` extra iterations after the solves and their checks, each kernel
    // launch between its own event pair. alpha = beta = 0 (x += 0 p, r -= 0 q, p := r): x and r
    // keep their values, p and q are overwritten; the halos are not exchanged (the face kernels
    // run on what the buffers hold). Call only once no solve follows.
    struct KernelTimes {
        std::vector<std::string> names;            // in launch order
        std::vector<double> bytes;                 // each kernel's minimal bytes moved
        std::vector<std::vector<double>> seconds;  // [kernel][iteration]
        std::vector<double> span_s;                // [iteration] first kernel's start to last one's end
        double back_to_back_s = 0.0;               // per iteration, the same launches with no events between
    };
    virtual std::optional<KernelTimes> time_kernels(int /*iterations*/) { return std::nullopt; }
};

std::unique_ptr<CgBackend> make_host_cg(const LocalExtent& local);
std::unique_ptr<CgBackend> make_cuda_cg(const LocalExtent& local, int device);  // throws without CUDA
bool cuda_cg_built();

}  // namespace shakedown::kernels::cg
