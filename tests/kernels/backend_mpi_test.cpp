// `backend: auto|kokkos|native` of stream, stencil3d and dgemm_fp64: an unknown value is refused
// before any work (the driver's exit 2), backend kokkos on a host rank runs the host Kokkos
// code as auto does, native on a host rank and kokkos on a GPU rank with a Kokkos that has no
// device backend are waived with the reason.
#include "support/mpi_world.hpp"
#include "support/run_test.hpp"

#include "kernels/common/kernel_backend.hpp"

#include "core/errors.hpp"

#include <gtest/gtest.h>

namespace shakedown::testing {
namespace {

using kernels::BackendChoice;
using kernels::choose_backend;
using kernels::KernelBackend;
using kernels::KokkosFacts;

const KokkosFacts serial_kokkos{true, false, "Serial", std::nullopt};
const KokkosFacts cuda_kokkos{true, true, "Cuda,Serial", std::nullopt};
const KokkosFacts no_kokkos{false, false, "", std::nullopt};
const std::string needs_kokkos = "built without Kokkos (host stencil needs Kokkos)";

TEST(KernelBackend, UnknownBackendIsRefusedBeforeAnyWork) {
    for (const std::string key : {"stream", "stencil3d", "dgemm_fp64"})
        expect_refused(key, "params: {" + key + ": {backend: sycl}}\n",
                       "'params." + key + ".backend' unknown value 'sycl' (known: auto, kokkos, native)");
    EXPECT_THROW(choose_backend("cuda", true, cuda_kokkos, false, needs_kokkos), InputError);
}

TEST(KernelBackend, GpuRankTakesNativeUnlessKokkosIsAskedAndHasADevice) {
    EXPECT_EQ(choose_backend("auto", true, cuda_kokkos, false, needs_kokkos).backend, KernelBackend::native);
    EXPECT_EQ(choose_backend("native", true, cuda_kokkos, false, needs_kokkos).backend, KernelBackend::native);
    const BackendChoice kokkos = choose_backend("kokkos", true, cuda_kokkos, false, needs_kokkos);
    EXPECT_EQ(kokkos.backend, KernelBackend::kokkos);
    EXPECT_FALSE(kokkos.waiver);
}

TEST(KernelBackend, KokkosOnAGpuRankWithoutADeviceBackendIsNotRun) {
    const BackendChoice serial = choose_backend("kokkos", true, serial_kokkos, false, needs_kokkos);
    ASSERT_TRUE(serial.waiver);
    EXPECT_EQ(*serial.waiver, "backend kokkos on a GPU needs a Kokkos with a device backend; this Kokkos has Serial (host only)");
    const BackendChoice none = choose_backend("kokkos", true, no_kokkos, false, needs_kokkos);
    ASSERT_TRUE(none.waiver);
    EXPECT_EQ(*none.waiver, "backend kokkos: built without Kokkos");
    // A CUDA Kokkos that could not start (no device on this node) says so.
    const KokkosFacts stopped{true, true, "Cuda,Serial", std::string("Kokkos cannot start")};
    EXPECT_EQ(choose_backend("kokkos", true, stopped, false, needs_kokkos).waiver, std::optional<std::string>("Kokkos cannot start"));
    EXPECT_EQ(choose_backend("auto", false, stopped, false, needs_kokkos).waiver, std::optional<std::string>("Kokkos cannot start"));
    // This build's own Kokkos (Debian's Serial one in CI): a GPU rank asking for kokkos is waived.
    const KokkosFacts mine = kernels::this_kokkos();
    if (mine.built && !mine.device_backend) {
        const BackendChoice here = choose_backend("kokkos", true, mine, false, needs_kokkos);
        ASSERT_TRUE(here.waiver);
        EXPECT_NE(here.waiver->find("needs a Kokkos with a device backend"), std::string::npos) << *here.waiver;
    }
}

TEST(KernelBackend, HostRankRunsKokkosForAutoAndKokkos) {
    for (const char* requested : {"auto", "kokkos"}) {
        const BackendChoice choice = choose_backend(requested, false, serial_kokkos, false, needs_kokkos);
        EXPECT_EQ(choice.backend, KernelBackend::kokkos) << requested;
        EXPECT_FALSE(choice.waiver) << requested;
    }
    // Without Kokkos: the plain host code where there is one (stream), the kernel's reason otherwise.
    EXPECT_EQ(choose_backend("auto", false, no_kokkos, true, needs_kokkos).backend, KernelBackend::native);
    EXPECT_EQ(choose_backend("native", false, no_kokkos, true, needs_kokkos).waiver, std::nullopt);
    EXPECT_EQ(choose_backend("auto", false, no_kokkos, false, needs_kokkos).waiver, std::optional<std::string>(needs_kokkos));
    EXPECT_EQ(choose_backend("kokkos", false, no_kokkos, true, needs_kokkos).waiver, std::optional<std::string>(needs_kokkos));
    // With Kokkos the host has no native implementation.
    const BackendChoice native = choose_backend("native", false, serial_kokkos, false, needs_kokkos);
    ASSERT_TRUE(native.waiver);
    EXPECT_NE(native.waiver->find("backend native has no host implementation"), std::string::npos) << *native.waiver;
}

TEST(KernelBackend, BackendKokkosOnHostRanksRunsAsToday) {
    if (!kernels::this_kokkos().built || kernels::this_kokkos().not_running) GTEST_SKIP() << "no running Kokkos in this build";
    const TestResult stream =
        run_registered_test("stream", "params: {stream: {device: host, backend: kokkos, array_mib: 1, repetitions: 2}}\n");
    ASSERT_EQ(stream.status, Status::pass) << stream.reason;
    EXPECT_EQ(stream.parameters.at("backend").rfind("kokkos-", 0), 0u) << stream.parameters.at("backend");
    EXPECT_EQ(stream.parameters.at("device"), "host");

    const TestResult stencil = run_registered_test(
        "stencil3d", "params: {stencil3d: {device: host, backend: kokkos, local_n: 12, steps: 4, triad_mib: 1, triad_repetitions: 2}}\n");
    ASSERT_EQ(stencil.status, Status::pass) << stencil.reason;
    EXPECT_EQ(stencil.parameters.at("backend").rfind("kokkos-", 0), 0u) << stencil.parameters.at("backend");

    const TestResult dgemm =
        run_registered_test("dgemm_fp64", "params: {dgemm_fp64: {device: host, backend: kokkos, n: 64, repetitions: 2}}\n");
    ASSERT_EQ(dgemm.status, Status::pass) << dgemm.reason;
    EXPECT_EQ(dgemm.parameters.at("backend"), "kokkos-blas");
}

TEST(KernelBackend, NativeOnAHostRankIsWaivedWithTheReason) {
    if (!kernels::this_kokkos().built) GTEST_SKIP() << "without Kokkos stream's native host loops run";
    for (const std::string key : {"stream", "stencil3d", "dgemm_fp64"}) {
        const TestResult result = run_registered_test(key, "params: {" + key + ": {device: host, backend: native}}\n");
        EXPECT_EQ(result.status, Status::waived) << key;
        EXPECT_NE(result.reason.find("backend native has no host implementation"), std::string::npos) << key << ": " << result.reason;
    }
}

}  // namespace
}  // namespace shakedown::testing
