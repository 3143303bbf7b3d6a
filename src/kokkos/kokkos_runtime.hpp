// Whether this binary's kernels can run through Kokkos, and on what. With Kokkos,
// kokkos_runtime.cpp registers the runtime guard that the driver starts after MPI_Init and
// stops before MPI_Finalize; with a device backend (CUDA) it binds Kokkos to the GPU the
// session binds this rank to (local rank modulo visible GPUs).
#pragma once

#include <optional>
#include <string>

namespace shakedown::kokkos {

// Built against Kokkos at all (host kernels: Kokkos' host execution space).
bool built();
// Built against a Kokkos with a device execution space (CUDA): `backend: kokkos` can run on
// a GPU rank.
bool device_backend();
// "Cuda,Serial", "Serial", "" without Kokkos: the execution spaces this Kokkos has.
std::string devices();
// Why Kokkos is not running in this process although it is built (a CUDA Kokkos on a node
// without a CUDA device cannot initialise); nothing when it runs or is not built.
std::optional<std::string> not_running();
// The device Kokkos is bound to (CUDA ordinal), when it has a device backend and runs.
std::optional<int> device_id();

}  // namespace shakedown::kokkos
