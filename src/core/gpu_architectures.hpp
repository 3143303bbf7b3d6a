// Whether this binary has code a GPU can run: machine code (SASS) for its compute capability's
// generation, or PTX the driver can compile for it. A GPU without either would fail every kernel
// with "no kernel image", which is the build's fault, not the hardware's: the driver refuses to
// start (exit 2) instead of letting every rank error and every node be drained.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown {

// One entry of CMAKE_CUDA_ARCHITECTURES: "90" (SASS and PTX), "90-real", "90-virtual", "90a"
// (arch-specific SASS: that exact part only), "100f" (family: 10.x from 10.0 up).
struct CudaArchitecture {
    int number = 0;  // 10 * major + minor
    bool sass = false;
    bool ptx = false;
    enum class Scope { generation, family, exact } scope = Scope::generation;
};

// The entries of a CMake list ("80-real;89-real;90-real;100-real;120"); nothing when the list is
// empty or holds a value only CMake can expand ("all", "all-major", "native"): then no check.
std::optional<std::vector<CudaArchitecture>> parse_cuda_architectures(std::string_view cmake_list);

// "sm_80, sm_90 and PTX compute_120"
std::string describe_cuda_architectures(const std::vector<CudaArchitecture>& built);

// Nothing when a GPU of compute capability `device` (10 * major + minor) can run code of `built`;
// else "built for sm_90, this GPU is sm_80".
std::optional<std::string> gpu_architecture_refusal(int device, const std::vector<CudaArchitecture>& built);

}  // namespace shakedown
