// STREAM through Kokkos, one implementation for two execution spaces: the host backend runs
// in Kokkos' host space (Debian's Serial Kokkos: the host core this rank runs on; a CUDA
// Kokkos keeps it on the host too), `backend: kokkos` on a GPU rank runs in Kokkos::Cuda with
// the arrays in CudaSpace (a Kokkos with the CUDA backend).
#include "kernels/stream/stream_backend.hpp"

#include "core/clock.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace shakedown::kernels {
namespace {

// The member functions that hold device lambdas are public: nvcc refuses extended lambdas in
// private or protected member functions.
template <class Exec>
class KokkosStream final : public StreamBackend {
public:
    using Array = Kokkos::View<double*, typename Exec::memory_space>;
    using Policy = Kokkos::RangePolicy<Exec>;

    explicit KokkosStream(std::size_t elements)
        : n_(elements), a_("stream_a", elements), b_("stream_b", elements), c_("stream_c", elements) {}

    std::string name() const override { return std::string("kokkos-") + Exec::name(); }

    void initialise() override {
        Array a = a_, b = b_, c = c_;
        Kokkos::parallel_for("stream_init", Policy(0, n_), KOKKOS_LAMBDA(const std::size_t i) {
            a(i) = stream_start_a;
            b(i) = stream_start_b;
            c(i) = stream_start_c;
        });
        Exec().fence();
    }

    double run_timed(StreamKernel kernel, double& dot_result) override {
        Array a = a_, b = b_, c = c_;
        const double s = stream_scalar;
        Exec().fence();
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
        Exec().fence();
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
        Exec().fence();
    }

    Array view(StreamArray array) const {
        switch (array) {
        case StreamArray::a: return a_;
        case StreamArray::b: return b_;
        case StreamArray::c: return c_;
        }
        return a_;
    }

private:
    std::size_t n_;
    Array a_, b_, c_;
};

}  // namespace

std::unique_ptr<StreamBackend> make_host_stream(std::size_t elements) {
    return std::make_unique<KokkosStream<Kokkos::DefaultHostExecutionSpace>>(elements);
}

std::unique_ptr<StreamBackend> make_kokkos_device_stream(std::size_t elements, int device) {
#if defined(KOKKOS_ENABLE_CUDA)
    if (Kokkos::Cuda().cuda_device() != device)
        throw std::runtime_error("stream: Kokkos runs on CUDA device " + std::to_string(Kokkos::Cuda().cuda_device()) +
                                 ", this rank is bound to " + std::to_string(device));
    return std::make_unique<KokkosStream<Kokkos::Cuda>>(elements);
#else
    (void)elements;
    (void)device;
    throw std::runtime_error("this Kokkos has no CUDA backend");
#endif
}

}  // namespace shakedown::kernels
