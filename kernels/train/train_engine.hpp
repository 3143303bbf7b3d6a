// What train_step needs from a device: one training step of the layer stack with its gradients
// summed over a communicator in buckets as the backward completes them, an all-reduce timed on its
// own (the bus bandwidth the prediction uses), the GEMM rate of the same precision, and the
// gradients' checksums. The host engine (float, the system BLAS, MPI_Iallreduce) and the GPU engine
// (bf16 through cuBLASLt, cuDNN's fused attention, NCCL on a second stream) run the same schedule.
#pragma once

#include "kernels/train/train_shape.hpp"

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace shakedown::kernels::train {

struct StepTimes {
    double seconds = 0.0;                // from the step's start until its compute and every reduction ended
    double compute_s = 0.0;              // until the backward computed its last gradient
    std::vector<double> bucket_ready_s;  // when each bucket's last gradient was complete
};

// Order-independent fingerprints of a gradient buffer: checksum = sum of g_i * w_i with
// w_i = +-1 from a hash of i, magnitude = sum of |g_i| (both in double), and a 64-bit hash of every
// element's bits (sum over i of mix64(i, bits)): equal hashes mean equal buffers, bit for bit.
struct GradientSummary {
    double checksum = 0.0;
    double magnitude = 0.0;
    std::uint64_t hash = 0;
};

class TrainEngine {
public:
    virtual ~TrainEngine() = default;

    virtual std::string description() const = 0;   // "host fp32, OpenBLAS", "GPU bf16: cuBLASLt, cuDNN 9.13 attention"
    virtual std::string attention_path() const = 0;  // "explicit", "cudnn", "batched_gemm"
    virtual const std::vector<TensorSlot>& layout() const = 0;
    virtual std::size_t element_bytes() const = 0;   // of a gradient element: 4 (fp32) or 2 (bf16)
    // Smallest relative rounding step of that element (2^-24 for fp32, 2^-8 for bf16).
    virtual double unit_roundoff() const = 0;
    // Whether a bucket's sum runs beside the backward (NCCL on its own stream) or takes its time
    // out of it (MPI on the host: progressed only inside MPI calls, on the cores that compute).
    virtual bool overlaps_communication() const = 0;

    // The ranks whose gradients the following steps sum (collective over `comm`); MPI_COMM_NULL: none.
    virtual void reduce_over(MPI_Comm comm) = 0;
    // One step: forward, backward, and each bucket's sum started as its last gradient is complete.
    // `delay_s` (a planted slow rank) is added per layer of the forward.
    virtual StepTimes step(const std::vector<Bucket>& buckets, double delay_s) = 0;
    // Median seconds of an all-reduce of `elements` gradient elements over the current
    // communicator, `repetitions` times after one untimed.
    virtual double time_allreduce(std::size_t elements, int repetitions) = 0;
    // Sums every bucket of the current gradients over the current communicator, and waits.
    virtual void reduce_gradients(const std::vector<Bucket>& buckets) = 0;

    virtual GradientSummary summarize_gradients() = 0;
    virtual void corrupt_one_gradient() = 0;  // a planted fault: one element of the gradients changed

    // The same precision's GEMM on the stack's largest product (tokens x 2 ffn x hidden), TFLOP/s.
    virtual double gemm_peak_tflops() = 0;

    // For the reference check on a small shape: after a step, the stack's output and gradients.
    virtual std::vector<float> output() = 0;
    virtual std::vector<float> gradients() = 0;
};

// On the host: float through the system's CBLAS. `rank_seed` selects the rank's data.
std::unique_ptr<TrainEngine> make_host_engine(const StepShape& shape, std::uint64_t rank_seed);

// On `gpu`: bf16. `attention`: "auto" (cuDNN's fused attention where libcudnn loads and has an
// engine for the shape, else batched GEMMs), "cudnn" (refused where it cannot run) or "batched_gemm".
std::unique_ptr<TrainEngine> make_gpu_engine(const StepShape& shape, std::uint64_t rank_seed, int gpu,
                                             const std::string& attention);
bool gpu_engine_built();

// Fingerprints of a host buffer, the definition the GPU's kernels follow.
GradientSummary summarize_host(const float* values, std::size_t count);
double checksum_weight(std::uint64_t index);  // +1 or -1

}  // namespace shakedown::kernels::train
