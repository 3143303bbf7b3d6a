// The optional features this binary was built with (CMake's SHAKEDOWN_WITH_* options): what a
// test's declaration can need, and what `shakedown version` reports.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace shakedown {

enum class Feature { cuda, nccl, kokkos, verbs, ucx };

bool built_with(Feature feature);
std::string_view to_string(Feature feature);  // "CUDA", "NCCL", "Kokkos", "verbs", "UCX"

// CMAKE_CUDA_ARCHITECTURES as configured ("80-real;89-real;90-real;100-real;120"); empty
// without CUDA. The start-up check compares the GPU against it (gpu_architectures.hpp).
std::string_view built_cuda_architectures();

// The first of `needs` this binary lacks, if any.
std::optional<Feature> first_missing(const std::vector<Feature>& needs);

}  // namespace shakedown
