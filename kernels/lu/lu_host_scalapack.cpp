// The host LU through ScaLAPACK (Debian's libscalapack-openmpi): A distributed block-cyclically
// over a P x Q BLACS grid made from the test's MPI communicator, pdgetrf + pdgetrs timed between
// barriers, then A generated again from the seed over its factors (HPL's way: one matrix in
// memory), the residual with pdgemv and the norms with pdlange.
#include "kernels/lu/lu_engine.hpp"
#include "kernels/lu/lu_math.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

extern "C" {
int Csys2blacs_handle(MPI_Comm comm);
void Cfree_blacs_system_handle(int handle);
void Cblacs_gridinit(int* context, const char* order, int rows, int columns);
void Cblacs_gridinfo(int context, int* rows, int* columns, int* my_row, int* my_column);
void Cblacs_gridexit(int context);
int numroc_(const int* n, const int* block, const int* process, const int* source, const int* processes);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* row_source,
               const int* column_source, const int* context, const int* lld, int* info);
void pdgetrf_(const int* m, const int* n, double* a, const int* ia, const int* ja, const int* desca, int* ipiv, int* info);
void pdgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* ia, const int* ja,
              const int* desca, const int* ipiv, double* b, const int* ib, const int* jb, const int* descb, int* info);
double pdlange_(const char* norm, const int* m, const int* n, const double* a, const int* ia, const int* ja,
                const int* desca, double* work);
void pdgemv_(const char* trans, const int* m, const int* n, const double* alpha, const double* a, const int* ia,
             const int* ja, const int* desca, const double* x, const int* ix, const int* jx, const int* descx,
             const int* incx, const double* beta, double* y, const int* iy, const int* jy, const int* descy,
             const int* incy);
}

namespace shakedown::kernels::lu {
namespace {

// A BLACS grid over an MPI communicator, released with it.
class BlacsGrid {
public:
    BlacsGrid(MPI_Comm comm, ProcessGrid shape) : system_(Csys2blacs_handle(comm)), context_(system_) {
        Cblacs_gridinit(&context_, "Row", shape.rows, shape.columns);
        Cblacs_gridinfo(context_, &rows_, &columns_, &my_row_, &my_column_);
        if (my_row_ < 0 || my_column_ < 0) throw std::runtime_error("BLACS did not place this rank in the process grid");
    }
    ~BlacsGrid() {
        Cblacs_gridexit(context_);
        Cfree_blacs_system_handle(system_);
    }
    BlacsGrid(const BlacsGrid&) = delete;
    BlacsGrid& operator=(const BlacsGrid&) = delete;

    int context() const { return context_; }
    int rows() const { return rows_; }
    int columns() const { return columns_; }
    int my_row() const { return my_row_; }
    int my_column() const { return my_column_; }

private:
    int system_;
    int context_;
    int rows_ = 0, columns_ = 0, my_row_ = -1, my_column_ = -1;
};

// The global index of local index `local` in a block-cyclic distribution (ScaLAPACK's indxl2g).
std::uint64_t global_index(int local, int block, int process, int processes) {
    return static_cast<std::uint64_t>((local / block) * processes + process) * static_cast<std::uint64_t>(block) +
           static_cast<std::uint64_t>(local % block);
}

class ScalapackLu final : public LuEngine {
public:
    ScalapackLu(MPI_Comm comm, std::size_t n, int block, ProcessGrid shape)
        : comm_(comm), n_(static_cast<int>(n)), block_(block), grid_(comm, shape) {
        const int zero = 0;
        const int one = 1;
        const int my_row = grid_.my_row(), my_column = grid_.my_column();
        const int rows = grid_.rows(), columns = grid_.columns();
        local_rows_ = numroc_(&n_, &block_, &my_row, &zero, &rows);
        local_columns_ = numroc_(&n_, &block_, &my_column, &zero, &columns);
        vector_columns_ = numroc_(&one, &block_, &my_column, &zero, &columns);
        const int lld = std::max(1, local_rows_);
        int info = 0;
        const int context = grid_.context();
        descinit_(matrix_desc_, &n_, &n_, &block_, &block_, &zero, &zero, &context, &lld, &info);
        if (info != 0) throw std::runtime_error(fmt::format("descinit (matrix) returned {}", info));
        descinit_(vector_desc_, &n_, &one, &block_, &block_, &zero, &zero, &context, &lld, &info);
        if (info != 0) throw std::runtime_error(fmt::format("descinit (vector) returned {}", info));
        const auto local = static_cast<std::size_t>(local_rows_) * static_cast<std::size_t>(local_columns_);
        a_.resize(local);
        const auto vector = static_cast<std::size_t>(local_rows_) * static_cast<std::size_t>(vector_columns_);
        b_.resize(vector);
        x_.resize(vector);
        r_.resize(vector);
        pivots_.resize(static_cast<std::size_t>(local_rows_ + block_));
        work_.resize(static_cast<std::size_t>(std::max(local_rows_, local_columns_) + block_));
    }
    std::string name() const override {
        return fmt::format("scalapack {}x{}, block {}", grid_.rows(), grid_.columns(), block_);
    }

    LuOutcome solve(std::uint64_t seed, bool corrupt) override {
        generate(seed);
        const int one = 1;
        const int nrhs = 1;
        LuOutcome outcome;
        MPI_Barrier(comm_);
        const double start = MPI_Wtime();
        pdgetrf_(&n_, &n_, a_.data(), &one, &one, matrix_desc_, pivots_.data(), &outcome.info);
        if (corrupt && !a_.empty()) a_[a_.size() / 2] += 1.0;  // one element of this rank's part of L or U
        int solve_info = 0;
        if (outcome.info == 0)
            pdgetrs_("N", &n_, &nrhs, a_.data(), &one, &one, matrix_desc_, pivots_.data(), x_.data(), &one, &one,
                     vector_desc_, &solve_info);
        double seconds = MPI_Wtime() - start;
        MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm_);
        outcome.seconds = seconds;
        if (solve_info != 0) throw std::runtime_error(fmt::format("pdgetrs returned {}", solve_info));
        if (outcome.info != 0) return outcome;

        // r = A x - b with A generated again over its factors (HPL's way: one matrix in memory).
        generate_matrix(seed);
        r_ = b_;
        const double plus = 1.0;
        const double minus = -1.0;
        pdgemv_("N", &n_, &n_, &plus, a_.data(), &one, &one, matrix_desc_, x_.data(), &one, &one, vector_desc_, &one,
                &minus, r_.data(), &one, &one, vector_desc_, &one);
        outcome.residual_norm = pdlange_("I", &n_, &one, r_.data(), &one, &one, vector_desc_, work_.data());
        outcome.matrix_norm = pdlange_("I", &n_, &n_, a_.data(), &one, &one, matrix_desc_, work_.data());
        outcome.solution_norm = pdlange_("I", &n_, &one, x_.data(), &one, &one, vector_desc_, work_.data());
        outcome.rhs_norm = pdlange_("I", &n_, &one, b_.data(), &one, &one, vector_desc_, work_.data());
        return outcome;
    }

private:
    void generate(std::uint64_t seed) {
        generate_matrix(seed);
        const auto n = static_cast<std::uint64_t>(n_);
        for (int column = 0; column < vector_columns_; ++column)  // the vector's one column lives on grid column 0
            for (int row = 0; row < local_rows_; ++row)
                b_[static_cast<std::size_t>(row)] =
                    input_entry(seed, global_index(row, block_, grid_.my_row(), grid_.rows()), n, n);
        x_ = b_;  // pdgetrs solves in place
    }

    void generate_matrix(std::uint64_t seed) {
        const auto n = static_cast<std::uint64_t>(n_);
        const auto rows = static_cast<std::size_t>(local_rows_);
        for (int column = 0; column < local_columns_; ++column) {
            const std::uint64_t j = global_index(column, block_, grid_.my_column(), grid_.columns());
            for (int row = 0; row < local_rows_; ++row) {
                const std::uint64_t i = global_index(row, block_, grid_.my_row(), grid_.rows());
                a_[static_cast<std::size_t>(column) * rows + static_cast<std::size_t>(row)] = input_entry(seed, i, j, n);
            }
        }
    }

    MPI_Comm comm_;
    int n_;
    int block_;
    BlacsGrid grid_;
    int local_rows_ = 0, local_columns_ = 0, vector_columns_ = 0;
    int matrix_desc_[9] = {};
    int vector_desc_[9] = {};
    std::vector<double> a_, b_, x_, r_, work_;
    std::vector<int> pivots_;
};

}  // namespace

std::unique_ptr<LuEngine> make_host_lu(MPI_Comm comm, std::size_t n, int block, ProcessGrid grid) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    if (grid.rows * grid.columns != size)
        throw InputError(fmt::format("lu_fp64: grid {} holds {} ranks, the host LU has {}", to_string(grid),
                                     grid.rows * grid.columns, size));
    return std::make_unique<ScalapackLu>(comm, n, block, grid);
}

bool host_lu_built() { return true; }

}  // namespace shakedown::kernels::lu
