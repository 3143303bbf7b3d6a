// The kernels family's test declarations (one *_spec.cpp each, built into every binary).
#pragma once

#include "core/test_spec.hpp"

namespace shakedown::kernels {

const TestSpec& stream_spec();
const TestSpec& dgemm_fp64_spec();
const TestSpec& stencil3d_spec();
const TestSpec& gemm_ladder_spec();
const TestSpec& lu_fp64_spec();
const TestSpec& cg_fp64_spec();
const TestSpec& train_step_spec();

}  // namespace shakedown::kernels
