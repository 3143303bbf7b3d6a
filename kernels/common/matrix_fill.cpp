#include "kernels/common/matrix_fill.hpp"

namespace shakedown::kernels {

std::vector<double> random_matrix(std::uint64_t seed, std::size_t rows, std::size_t cols) {
    std::vector<double> values(rows * cols);
    for (std::size_t index = 0; index < values.size(); ++index) values[index] = random_entry(seed, index);
    return values;
}

}  // namespace shakedown::kernels
