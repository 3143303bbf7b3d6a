#include "kernels/stream/stream_run.hpp"

#include "kernels/specs.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <thread>

namespace shakedown::kernels {
namespace {

std::string validate(const StreamBackend& backend, const StreamRunOptions& options, double dot) {
    const StreamGold gold = stream_gold(options.repetitions, options.elements);
    const double tolerance = stream_element_tolerance(options.repetitions);
    std::string failure;
    const auto append = [&failure](const std::string& text) { failure += (failure.empty() ? "" : "; ") + text; };
    for (const StreamArray array : {StreamArray::a, StreamArray::b, StreamArray::c}) {
        const auto check = backend.check(array, gold.of(array), tolerance, stream_mismatch_print_cap);
        if (check.mismatches > 0) append(describe_failure(array, gold.of(array), check));
    }
    const double dot_error = std::abs(dot - gold.dot) / std::abs(gold.dot);
    if (!(dot_error <= stream_dot_tolerance(options.elements)))
        append(fmt::format("dot returned {:.17g} (expected {:.17g}, relative error {:.3g})", dot, gold.dot, dot_error));
    return failure;
}

}  // namespace

StreamMeasurement measure_stream(StreamBackend& backend, const StreamRunOptions& options, MPI_Comm comm) {
    StreamMeasurement measurement;
    measurement.samples = SampleTable(stream_spec().samples);
    backend.initialise();
    double dot = 0.0;
    for (std::int64_t rep = 0; rep < options.repetitions; ++rep) {
        for (const auto& kernel : stream_kernel_table) {
            MPI_Barrier(comm);
            double seconds = backend.run_timed(kernel.id, dot);
            if (options.delay_s > 0.0) {
                std::this_thread::sleep_for(std::chrono::duration<double>(options.delay_s));
                seconds += options.delay_s;
            }
            const double gbs = gigabytes_per_second(kernel.id, options.elements, seconds);
            measurement.gbs[kernel.id].push_back(gbs);
            measurement.samples.add_row({static_cast<double>(kernel.id), static_cast<double>(rep), seconds, gbs});
        }
    }
    if (options.corrupt) backend.corrupt(StreamArray::a, options.elements / 2);
    measurement.failure = validate(backend, options, dot);
    return measurement;
}

}  // namespace shakedown::kernels
