// STREAM in plain C++ for builds without Kokkos: the same kernels as simple loops the
// compiler vectorises, one rank per core.
#include "kernels/stream/stream_backend.hpp"

#include <stdexcept>

#include "core/clock.hpp"

#include <cmath>
#include <vector>

namespace shakedown::kernels {
namespace {

class PlainStream final : public StreamBackend {
public:
    explicit PlainStream(std::size_t elements) : a_(elements), b_(elements), c_(elements) {}

    std::string name() const override { return "host"; }

    void initialise() override {
        std::fill(a_.begin(), a_.end(), stream_start_a);
        std::fill(b_.begin(), b_.end(), stream_start_b);
        std::fill(c_.begin(), c_.end(), stream_start_c);
    }

    double run_timed(StreamKernel kernel, double& dot_result) override {
        const std::size_t n = a_.size();
        double* a = a_.data();
        double* b = b_.data();
        double* c = c_.data();
        const double s = stream_scalar;
        const Stopwatch watch;
        switch (kernel) {
        case StreamKernel::copy: for (std::size_t i = 0; i < n; ++i) c[i] = a[i]; break;
        case StreamKernel::scale: for (std::size_t i = 0; i < n; ++i) b[i] = s * c[i]; break;
        case StreamKernel::add: for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i]; break;
        case StreamKernel::triad: for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i]; break;
        case StreamKernel::dot: {
            double sum = 0.0;
            for (std::size_t i = 0; i < n; ++i) sum += a[i] * b[i];
            dot_result = sum;
            break;
        }
        }
        return watch.seconds();
    }

    StreamArrayCheck check(StreamArray array, double gold, double tolerance, std::size_t cap) const override {
        const auto& values = vector(array);
        StreamArrayCheck result;
        for (std::size_t i = 0; i < values.size(); ++i) {
            if (std::abs(values[i] - gold) <= tolerance * std::abs(gold)) continue;
            if (result.first.size() < cap) result.first.push_back({i, values[i]});
            ++result.mismatches;
        }
        return result;
    }

    void corrupt(StreamArray array, std::size_t index) override {
        auto& values = vector(array);
        values.at(index) = -2.0 * values.at(index) - 1.0;
    }

private:
    std::vector<double>& vector(StreamArray array) {
        return array == StreamArray::a ? a_ : array == StreamArray::b ? b_ : c_;
    }
    const std::vector<double>& vector(StreamArray array) const {
        return array == StreamArray::a ? a_ : array == StreamArray::b ? b_ : c_;
    }

    std::vector<double> a_, b_, c_;
};

}  // namespace

std::unique_ptr<StreamBackend> make_host_stream(std::size_t elements) {
    return std::make_unique<PlainStream>(elements);
}

// Without Kokkos `backend: kokkos` is waived before this could be called.
std::unique_ptr<StreamBackend> make_kokkos_device_stream(std::size_t, int) { throw std::runtime_error("built without Kokkos"); }

}  // namespace shakedown::kernels
