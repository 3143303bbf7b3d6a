// The MPI family's test declarations (one *_spec.cpp each, built into every binary).
#pragma once

#include "core/test_spec.hpp"

#include <array>
#include <string_view>

namespace shakedown::mpi {

const TestSpec& mpi_pingpong_spec();
const TestSpec& p2p_spec();
const TestSpec& allpairs_spec();
const TestSpec& mpi_coll_spec();
const TestSpec& gpu_aware_mpi_spec();
const TestSpec& nccl_spec();
const TestSpec& congestion_spec();
const TestSpec& congestion_nccl_spec();

// The collectives each test knows, in the order they run (also the metric names' words).
inline constexpr std::array<std::string_view, 6> mpi_collective_names = {"allreduce", "allgather", "reduce_scatter",
                                                                         "alltoall",  "bcast",     "barrier"};
inline constexpr std::array<std::string_view, 7> nccl_collective_names = {
    "all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast", "reduce", "sendrecv"};

}  // namespace shakedown::mpi
