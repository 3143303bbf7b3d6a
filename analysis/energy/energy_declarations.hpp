// Every test that declares what its work costs in energy (src/core/energy_declaration.hpp): the
// analyzer's energy figures read each.
#pragma once

#include "kernels/dgemm/dgemm_fp64_names.hpp"
#include "kernels/lu/lu_fp64_names.hpp"
#include "kernels/train/train_step_names.hpp"

#include <array>
#include <string_view>

namespace shakedown::analysis {

inline constexpr std::array<const EnergyDeclaration*, 3> energy_declarations = {
    &kernels::dgemm_names::energy, &kernels::lu_names::energy, &kernels::train_names::energy};

// The declaration of `test`, nullptr for a test that declares none.
inline const EnergyDeclaration* energy_declaration_of(std::string_view test) {
    for (const EnergyDeclaration* declaration : energy_declarations)
        if (declaration->test == test) return declaration;
    return nullptr;
}

}  // namespace shakedown::analysis
