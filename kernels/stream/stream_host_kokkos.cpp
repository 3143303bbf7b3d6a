// STREAM through Kokkos: the arrays live in the default execution space's memory, so with
// a device backend (CUDA, HIP) the same code measures the device; with Debian's Serial
// Kokkos it measures the host core this rank runs on.
#include "kernels/stream/stream_backend.hpp"

#include "core/clock.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>

namespace shakedown::kernels {
namespace {

using Array = Kokkos::View<double*>;
using Policy = Kokkos::RangePolicy<>;

class KokkosStream final : public StreamBackend {
public:
    explicit KokkosStream(std::size_t elements)
        : n_(elements), a_("stream_a", elements), b_("stream_b", elements), c_("stream_c", elements) {}

    std::string name() const override { return std::string("kokkos-") + Kokkos::DefaultExecutionSpace::name(); }

    void initialise() override {
        Array a = a_, b = b_, c = c_;
        Kokkos::parallel_for("stream_init", Policy(0, n_), KOKKOS_LAMBDA(const std::size_t i) {
            a(i) = stream_start_a;
            b(i) = stream_start_b;
            c(i) = stream_start_c;
        });
        Kokkos::fence();
    }

    double run_timed(StreamKernel kernel, double& dot_result) override {
        Array a = a_, b = b_, c = c_;
        const double s = stream_scalar;
        Kokkos::fence();
        const Stopwatch watch;
        switch (kernel) {
        case StreamKernel::copy:
            Kokkos::parallel_for("stream_copy", Policy(0, n_), KOKKOS_LAMBDA(const std::size_t i) { c(i) = a(i); });
            break;
        case StreamKernel::scale:
            Kokkos::parallel_for("stream_scale", Policy(0, n_), KOKKOS_LAMBDA(const std::size_t i) { b(i) = s * c(i); });
            break;
        case StreamKernel::add:
            Kokkos::parallel_for("stream_add", Policy(0, n_), KOKKOS_LAMBDA(const std::size_t i) { c(i) = a(i) + b(i); });
            break;
        case StreamKernel::triad:
            Kokkos::parallel_for("stream_triad", Policy(0, n_),
                                 KOKKOS_LAMBDA(const std::size_t i) { a(i) = b(i) + s * c(i); });
            break;
        case StreamKernel::dot: {
            double sum = 0.0;
            Kokkos::parallel_reduce(
                "stream_dot", Policy(0, n_), KOKKOS_LAMBDA(const std::size_t i, double& partial) { partial += a(i) * b(i); },
                sum);
            dot_result = sum;
            break;
        }
        }
        Kokkos::fence();
        return watch.seconds();
    }

    StreamArrayCheck check(StreamArray array, double gold, double tolerance, std::size_t cap) const override {
        const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view(array));
        StreamArrayCheck result;
        for (std::size_t i = 0; i < n_; ++i) {
            if (std::abs(host(i) - gold) <= tolerance * std::abs(gold)) continue;
            if (result.first.size() < cap) result.first.push_back({i, host(i)});
            ++result.mismatches;
        }
        return result;
    }

    void corrupt(StreamArray array, std::size_t index) override {
        Array target = view(array);
        Kokkos::parallel_for("stream_corrupt", Policy(index, index + 1),
                             KOKKOS_LAMBDA(const std::size_t i) { target(i) = -2.0 * target(i) - 1.0; });
        Kokkos::fence();
    }

private:
    Array view(StreamArray array) const {
        switch (array) {
        case StreamArray::a: return a_;
        case StreamArray::b: return b_;
        case StreamArray::c: return c_;
        }
        return a_;
    }

    std::size_t n_;
    Array a_, b_, c_;
};

}  // namespace

std::unique_ptr<StreamBackend> make_host_stream(std::size_t elements) {
    return std::make_unique<KokkosStream>(elements);
}

}  // namespace shakedown::kernels
