// Every test that declares its weak-scaling figures (src/core/scaling_declaration.hpp): the scaling
// rule judges each, the report's Workload section shows each.
#pragma once

#include "kernels/cg/cg_fp64_names.hpp"
#include "kernels/stencil/stencil3d_names.hpp"
#include "kernels/train/train_step_names.hpp"

#include <array>

namespace shakedown::analysis {

inline constexpr std::array<const ScalingDeclaration*, 3> scaling_declarations = {&kernels::train_names::scaling,
                                                                                  &kernels::stencil3d_names::scaling,
                                                                                  &kernels::cg_fp64_names::scaling};

}  // namespace shakedown::analysis
