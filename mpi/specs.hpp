// The MPI family's test declarations (one *_spec.cpp each, built into every binary).
#pragma once

#include "core/test_spec.hpp"
#include "mpi/collectives/mpi_coll_names.hpp"
#include "mpi/nccl/nccl_names.hpp"

namespace shakedown::mpi {

const TestSpec& mpi_pingpong_spec();
const TestSpec& p2p_spec();
const TestSpec& allpairs_spec();
const TestSpec& mpi_coll_spec();
const TestSpec& gpu_aware_mpi_spec();
const TestSpec& nccl_spec();
const TestSpec& congestion_spec();
const TestSpec& congestion_nccl_spec();

}  // namespace shakedown::mpi
