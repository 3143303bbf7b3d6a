#include "kernels/lu/lu_math.hpp"

namespace shakedown::kernels::lu {

double hpl_flops(double n) { return 2.0 / 3.0 * n * n * n + 2.0 * n * n; }

double hpl_tflops(double n, double seconds) { return seconds > 0.0 ? hpl_flops(n) / seconds * 1e-12 : 0.0; }

double scaled_residual(double residual_norm, double matrix_norm, double solution_norm, double rhs_norm, double n) {
    const double scale = unit_roundoff * (matrix_norm * solution_norm + rhs_norm) * n;
    return scale > 0.0 ? residual_norm / scale : residual_norm > 0.0 ? 1e300 : 0.0;
}

}  // namespace shakedown::kernels::lu
