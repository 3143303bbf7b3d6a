// What makes train_step's figures trustworthy. (1) The reduced gradient: every rank's checksum of
// it must equal the sum of the ranks' checksums of their own gradients within the rounding the
// reduction may add, and every rank must hold the same bits (hashes compared across ranks): a
// model-level silent-data-corruption fingerprint across GPUs and nodes. (2) The arithmetic: a
// small stack on the same engine against the same stack computed in double on the host.
#pragma once

#include "kernels/train/train_engine.hpp"

#include <mpi.h>

#include <string>

namespace shakedown::kernels::train {

struct ReductionCheck {
    double relative_error = 0.0;  // |checksum(reduced) - sum of checksums| / sum of magnitudes
    double bound = 0.0;           // what rounding may give: (ranks - 1 + 2) x unit roundoff
    bool hash_disagrees = false;  // this rank's reduced gradient differs from the majority's bits
    int distinct_hashes = 1;
    std::string problem;          // empty when this rank's reduced gradient is right
};

// Collective over `comm`: `local` summarised each rank's own gradient before the sum, `reduced`
// the sum it now holds.
ReductionCheck check_reduction(const GradientSummary& local, const GradientSummary& reduced, double unit_roundoff,
                               MPI_Comm comm);

// The relative L2 error ||got - want|| / ||want|| (0 when both are zero).
double relative_l2_error(const std::vector<float>& got, const std::vector<double>& want);

struct ReferenceCheck {
    double worst_error = 0.0;  // over the output and every gradient tensor
    std::string worst_tensor;  // "output", "layer 1 w_qkv", ...
};

// One step of `engine` (built on `shape` with `rank_seed`, no reduction) against the same step
// in double on the host; `bf16_values`: the engine starts from bf16-rounded values.
ReferenceCheck check_against_reference(TrainEngine& engine, const StepShape& shape, std::uint64_t rank_seed,
                                       bool bf16_values);

// The small stack the reference check runs: four heads of the main shape's head dimension.
StepShape reference_shape(const LayerShape& main);

}  // namespace shakedown::kernels::train
