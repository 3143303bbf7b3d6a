#include "health/burnin/burn_target.hpp"

#include "core/clock.hpp"
#include "gemm/matrix_fill.hpp"
#include "gemm/gemm_checksum.hpp"

namespace shakedown::health {
namespace {

constexpr std::uint64_t seed_a = 101;
constexpr std::uint64_t seed_b = 211;

}  // namespace

double WindowWork::tflops() const {
    const double order = static_cast<double>(n);
    return gemm_seconds > 0.0 ? 2.0 * order * order * order * static_cast<double>(gemms) / gemm_seconds * 1e-12 : 0.0;
}

BurnTarget::BurnTarget(std::unique_ptr<gemm::DgemmEngine> backend, std::size_t n)
    : backend_(std::move(backend)), n_(n), a_(gemm::random_matrix(seed_a, n, n)), b_(gemm::random_matrix(seed_b, n, n)) {
    backend_->load(a_, b_);
    backend_->run_timed();  // warm-up: library start-up is not part of any window
}

WindowWork BurnTarget::run_window(double seconds, bool plant_corruption) {
    WindowWork work;
    work.n = n_;
    const Stopwatch window;
    do {
        work.gemm_seconds += backend_->run_timed();
        ++work.gemms;
    } while (window.seconds() < seconds);
    work.wall_seconds = window.seconds();
    if (plant_corruption) backend_->corrupt(n_ / 3, n_ / 2);
    const auto check = gemm::check_gemm_by_checksums(a_, b_, backend_->result(), n_, n_, n_);
    if (!check.ok()) work.wrong_answer = gemm::describe_failure(check);
    return work;
}

}  // namespace shakedown::health
