// Where STREAM runs: the host (through Kokkos, or plain C++ when Kokkos is not built) or a
// CUDA GPU. The test owns the sequence, the statistics and the verdict; a backend owns the
// three arrays and knows how to run, time and check one kernel on its memory.
#pragma once

#include "kernels/stream/stream_kernels.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace shakedown::kernels {

class StreamBackend {
public:
    virtual ~StreamBackend() = default;

    virtual std::string name() const = 0;  // "kokkos-Serial", "kokkos-Cuda", "host", "cuda"
    // Fills a, b, c with the start values.
    virtual void initialise() = 0;
    // Runs one kernel to completion; returns its seconds. For dot, `dot_result` gets the sum.
    virtual double run_timed(StreamKernel kernel, double& dot_result) = 0;
    // Compares every element of `array` with `gold` (relative tolerance), reporting the
    // count of mismatches and up to `cap` of them, sorted by index.
    virtual StreamArrayCheck check(StreamArray array, double gold, double tolerance, std::size_t cap) const = 0;
    // Test-only planted fault: overwrite one element as a broken memory or kernel would.
    virtual void corrupt(StreamArray array, std::size_t index) = 0;
    // How each kernel was launched, for the trace ("launch_copy" -> "256 threads/block, ...");
    // empty where there is nothing to choose (host loops).
    virtual std::vector<std::pair<std::string, std::string>> launch_parameters() const { return {}; }
};

// Host backend: Kokkos in its host execution space when built with Kokkos, otherwise
// plain C++ loops (CMake picks the implementation file).
std::unique_ptr<StreamBackend> make_host_stream(std::size_t elements);
// CUDA backend on `device`; throws std::runtime_error when CUDA is not built in.
std::unique_ptr<StreamBackend> make_cuda_stream(std::size_t elements, int device);
// Kokkos on the GPU (`backend: kokkos`): the Kokkos code in Kokkos::Cuda on `device` (the one
// Kokkos was initialised on); throws std::runtime_error when this Kokkos has no CUDA backend.
std::unique_ptr<StreamBackend> make_kokkos_device_stream(std::size_t elements, int device);

}  // namespace shakedown::kernels
