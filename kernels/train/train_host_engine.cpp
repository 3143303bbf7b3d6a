// The host engine: the layer stack in float through the system's BLAS, each bucket summed with
// MPI_Iallreduce as soon as the backward completes it. Open MPI's TCP and shared-memory paths
// progress a non-blocking collective only inside MPI calls, so the backward tests the open
// requests after every gradient, as data-parallel frameworks without a progress thread do.
#include "kernels/train/host_layers.hpp"
#include "kernels/train/train_engine.hpp"

#include "core/clock.hpp"
#include "core/counter_hash.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace shakedown::kernels::train {

double checksum_weight(std::uint64_t index) { return (mix64(index ^ 0xC4EC'5A11ull) & 1u) != 0 ? 1.0 : -1.0; }

GradientSummary summarize_host(const float* values, std::size_t count) {
    GradientSummary summary;
    for (std::size_t i = 0; i < count; ++i) {
        summary.checksum += checksum_weight(i) * static_cast<double>(values[i]);
        summary.magnitude += std::abs(static_cast<double>(values[i]));
        std::uint32_t bits = 0;
        std::memcpy(&bits, values + i, sizeof bits);
        summary.hash += mix64((static_cast<std::uint64_t>(i) << 32) ^ bits);
    }
    return summary;
}

namespace {

void check_mpi(int code, const char* call) {
    if (code != MPI_SUCCESS) throw std::runtime_error(fmt::format("{} failed (MPI error {})", call, code));
}

class HostEngine final : public TrainEngine {
public:
    HostEngine(const StepShape& shape, std::uint64_t rank_seed) : stack_(shape, rank_seed, /*bf16_values=*/false) {}

    std::string description() const override { return "host fp32 through the system BLAS, MPI_Iallreduce per bucket"; }
    std::string attention_path() const override { return "explicit"; }
    const std::vector<TensorSlot>& layout() const override { return stack_.layout(); }
    std::size_t element_bytes() const override { return sizeof(float); }
    double unit_roundoff() const override { return 1.0 / 16777216.0; }
    bool overlaps_communication() const override { return false; }

    void reduce_over(MPI_Comm comm) override { comm_ = comm; }

    StepTimes step(const std::vector<Bucket>& buckets, double delay_s) override {
        StepTimes times;
        times.bucket_ready_s.assign(buckets.size(), 0.0);
        std::vector<MPI_Request> requests;
        requests.reserve(buckets.size());
        const Stopwatch clock;
        stack_.forward();
        if (delay_s > 0.0)  // a planted slow rank: per layer, as a slower device would be
            std::this_thread::sleep_for(std::chrono::duration<double>(delay_s * static_cast<double>(stack_.shape().layers)));
        stack_.backward([&](std::size_t slot) {
            if (const auto closed = bucket_closed_by(buckets, slot)) {
                times.bucket_ready_s[*closed] = clock.seconds();
                if (comm_ != MPI_COMM_NULL) {
                    const Bucket& bucket = buckets[*closed];
                    requests.emplace_back();
                    check_mpi(MPI_Iallreduce(MPI_IN_PLACE, stack_.gradients().data() + bucket.offset,
                                             static_cast<int>(bucket.elements), MPI_FLOAT, MPI_SUM, comm_, &requests.back()),
                              "MPI_Iallreduce");
                }
            }
            if (!requests.empty()) {
                int done = 0;
                check_mpi(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE),
                          "MPI_Testall");
            }
        });
        times.compute_s = clock.seconds();
        check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
        times.seconds = clock.seconds();
        return times;
    }

    double time_allreduce(std::size_t elements, int repetitions) override {
        if (comm_ == MPI_COMM_NULL) return 0.0;
        std::vector<float> buffer(elements, 1.0f);
        std::vector<double> seconds;
        for (int repetition = 0; repetition <= repetitions; ++repetition) {
            MPI_Barrier(comm_);
            // The step's own call (a non-blocking all-reduce takes other algorithms than the
            // blocking one in Open MPI), waited for at once.
            const Stopwatch clock;
            MPI_Request request = MPI_REQUEST_NULL;
            check_mpi(MPI_Iallreduce(MPI_IN_PLACE, buffer.data(), static_cast<int>(elements), MPI_FLOAT, MPI_SUM, comm_, &request),
                      "MPI_Iallreduce");
            check_mpi(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
            // The slowest rank's time: an all-reduce ends for the job when it ends everywhere.
            double mine = clock.seconds();
            MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_DOUBLE, MPI_MAX, comm_);
            if (repetition > 0) seconds.push_back(mine);
        }
        std::sort(seconds.begin(), seconds.end());
        return seconds[seconds.size() / 2];
    }

    void reduce_gradients(const std::vector<Bucket>& buckets) override {
        if (comm_ == MPI_COMM_NULL) return;
        for (const Bucket& bucket : buckets)
            check_mpi(MPI_Allreduce(MPI_IN_PLACE, stack_.gradients().data() + bucket.offset,
                                    static_cast<int>(bucket.elements), MPI_FLOAT, MPI_SUM, comm_),
                      "MPI_Allreduce");
    }

    GradientSummary summarize_gradients() override {
        return summarize_host(stack_.gradients().data(), stack_.gradients().size());
    }
    void corrupt_one_gradient() override {
        float& victim = stack_.gradients()[stack_.gradients().size() / 2];
        victim = victim * 2.0f + 1.0f;
    }

    double gemm_peak_tflops() override {
        const LayerShape& l = stack_.shape().layer;
        const std::int64_t m = stack_.shape().tokens(), n = 2 * l.ffn, k = l.hidden;
        std::vector<float> a(static_cast<std::size_t>(m * k), 0.5f), b(static_cast<std::size_t>(n * k), 0.25f),
            c(static_cast<std::size_t>(m * n));
        std::vector<double> rates;
        for (int repetition = 0; repetition < 4; ++repetition) {
            const Stopwatch clock;
            host_gemm(false, true, m, n, k, 1.0f, a.data(), k, b.data(), k, 0.0f, c.data(), n);
            if (repetition > 0) rates.push_back(2.0 * static_cast<double>(m * n * k) / clock.seconds() * 1e-12);
        }
        return *std::max_element(rates.begin(), rates.end());
    }

    std::vector<float> output() override { return stack_.output(); }
    std::vector<float> gradients() override { return stack_.gradients(); }

private:
    HostLayerStack<float> stack_;
    MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace

std::unique_ptr<TrainEngine> make_host_engine(const StepShape& shape, std::uint64_t rank_seed) {
    return std::make_unique<HostEngine>(shape, rank_seed);
}

}  // namespace shakedown::kernels::train
