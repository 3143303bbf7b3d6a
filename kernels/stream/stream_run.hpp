// One STREAM measurement on a backend: `repetitions` times the five kernels in table order,
// every rank of `comm` starting each kernel together, then validation against the gold
// values. Used by the `stream` test and by `stencil3d` for its bandwidth bound.
#pragma once

#include "kernels/stream/stream_backend.hpp"

#include "core/result.hpp"

#include <mpi.h>

#include <map>
#include <string>
#include <vector>

namespace shakedown::kernels {

struct StreamMeasurement {
    std::map<StreamKernel, std::vector<double>> gbs;  // one entry per repetition
    SampleTable samples;  // kernel id, repetition, seconds, gbs
    std::string failure;  // empty when every array and the dot product validated
};

struct StreamRunOptions {
    std::size_t elements = 0;
    std::int64_t repetitions = 1;
    double delay_s = 0.0;        // planted slowness added to every kernel's timed window
    bool corrupt = false;        // planted corruption of one element of a before validation
};

// Initialises the backend's arrays, runs, validates. Collective over `comm`.
StreamMeasurement measure_stream(StreamBackend& backend, const StreamRunOptions& options, MPI_Comm comm);

}  // namespace shakedown::kernels
