#include "gemm/blas_threads.hpp"

#include <dlfcn.h>

namespace shakedown::gemm {
namespace {

using SetThreads = void (*)(int);
using GetThreads = int (*)();
using GetCoreName = char* (*)();

template <typename Function>
Function lookup(const char* name) {
    return reinterpret_cast<Function>(dlsym(RTLD_DEFAULT, name));
}

}  // namespace

BlasThreadShare::BlasThreadShare(int threads) {
    const auto set = lookup<SetThreads>("openblas_set_num_threads");
    const auto get = lookup<GetThreads>("openblas_get_num_threads");
    if (!set || !get) return;
    previous_ = get();
    set(threads);
    applied_ = get();
}

BlasThreadShare::~BlasThreadShare() {
    if (!previous_) return;
    if (const auto set = lookup<SetThreads>("openblas_set_num_threads")) set(*previous_);
}

std::optional<std::string> BlasThreadShare::openblas_core() {
    const auto core = lookup<GetCoreName>("openblas_get_corename");
    if (!core) return std::nullopt;
    const char* name = core();
    return name ? std::optional<std::string>(name) : std::nullopt;
}

}  // namespace shakedown::gemm
