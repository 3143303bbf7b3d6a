// Built when CUDA is not: the GPU entry points exist so the tests link, and say why they
// cannot run if anything calls them (the waivers keep that from happening).
#include "kernels/stream/stream_backend.hpp"

#include <stdexcept>

namespace shakedown::kernels {

std::unique_ptr<StreamBackend> make_cuda_stream(std::size_t, int) { throw std::runtime_error("built without CUDA"); }

}  // namespace shakedown::kernels

#include "kernels/stencil/stencil_backend.hpp"

namespace shakedown::kernels {
std::unique_ptr<StencilBackend> make_cuda_stencil(const LocalExtent&, int) { throw std::runtime_error("built without CUDA"); }
}  // namespace shakedown::kernels
