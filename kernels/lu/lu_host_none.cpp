// Built without ScaLAPACK: the host LU says so (the test waives itself before asking).
#include "kernels/lu/lu_engine.hpp"

#include <stdexcept>

namespace shakedown::kernels::lu {

std::unique_ptr<LuEngine> make_host_lu(MPI_Comm, std::size_t, int, ProcessGrid) {
    throw std::logic_error("built without ScaLAPACK");
}

bool host_lu_built() { return false; }

}  // namespace shakedown::kernels::lu
