// Every size-sweep figure a test declares (src/core/sweep_figure_declaration.hpp), in the order the
// report shows them: the report draws each from its test's rank-0 samples.
#pragma once

#include "mpi/collectives/mpi_coll_names.hpp"
#include "mpi/nccl/nccl_names.hpp"
#include "mpi/pairs/mpi_pingpong_names.hpp"
#include "mpi/pairs/p2p_names.hpp"

#include <array>

namespace shakedown::analysis {

inline constexpr std::array<const SweepFigureDeclaration*, 5> sweep_figure_declarations = {
    &mpi::p2p_names::bandwidth_figure, &mpi::p2p_names::latency_figure, &mpi::mpi_pingpong_names::latency_figure,
    &mpi::mpi_coll_names::busbw_figure, &mpi::nccl_names::busbw_figure};

}  // namespace shakedown::analysis
