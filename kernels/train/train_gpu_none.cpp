// Built without CUDA: no GPU engine; GPU ranks waive train_step (gpu_engine_built).
#include "kernels/train/train_engine.hpp"

#include <stdexcept>

namespace shakedown::kernels::train {

std::unique_ptr<TrainEngine> make_gpu_engine(const StepShape&, std::uint64_t, int, const std::string&) {
    throw std::logic_error("the GPU training engine is not built into this shakedown");
}
bool gpu_engine_built() { return false; }

}  // namespace shakedown::kernels::train
