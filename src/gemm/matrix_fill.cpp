#include "gemm/matrix_fill.hpp"

namespace shakedown::gemm {

std::optional<MatrixFill> matrix_fill_from(const std::string& name) {
    if (name == "uniform") return MatrixFill::uniform;
    if (name == "small_integers") return MatrixFill::small_integers;
    return std::nullopt;
}

const char* to_string(MatrixFill fill) { return fill == MatrixFill::uniform ? "uniform" : "small_integers"; }

std::vector<double> random_matrix(std::uint64_t seed, std::size_t rows, std::size_t cols, MatrixFill fill) {
    std::vector<double> values(rows * cols);
    for (std::size_t index = 0; index < values.size(); ++index)
        values[index] = fill == MatrixFill::uniform ? random_entry(seed, index) : small_integer_entry(seed, index);
    return values;
}

}  // namespace shakedown::gemm
