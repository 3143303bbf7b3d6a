# Spack package for shakedown. Use it from this repository:
#   spack repo add packaging/spack && spack install shakedown +cuda cuda_arch=90
# Its variants are the CMake options of cmake/ShakedownOptions.cmake, one for one, and its
# dependencies those of the CMakeLists.txt files and cmake/ShakedownOptionalDeps.cmake;
# tests/install/spack_package_test.py checks both, so a new option cannot be left out here.

from spack.package import *


class Shakedown(CMakePackage, CudaPackage):
    """Acceptance tests for HPC and GPU clusters: one MPI job inventories every node, runs the
    tests of a suite, writes per-rank HDF5 traces, and shakedown-analyze says PASS, WARN or FAIL
    per node with the reason."""

    # The repository has no published address yet: a site points these at its own mirror
    # (or builds from a checkout: spack dev-build / spack develop shakedown@main).
    homepage = "https://example.invalid/shakedown"
    git = "https://example.invalid/shakedown.git"

    version("main", branch="main")

    # cuda (and cuda_arch) come from CudaPackage.
    variant("nccl", default=True, when="+cuda", description="NCCL collectives (needs CUDA)")
    variant("kokkos", default=True, description="Kokkos science kernels (with KokkosKernels for dgemm_fp64)")
    variant("verbs", default=True, description="libibverbs RDMA tests")
    variant("ucx", default=False, description="UCX transport tests")
    variant("scalapack", default=True, description="ScaLAPACK host LU (lu_fp64)")

    depends_on("cmake@3.24:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("help2man", type="build")  # man pages from the binaries' --help
    depends_on("googletest", type="test")

    depends_on("mpi")
    # The C API only; a non-thread-safe HDF5 is fine (the trace writer serialises its calls).
    depends_on("hdf5~mpi")
    depends_on("cli11")
    depends_on("yaml-cpp")
    depends_on("nlohmann-json@3.10:")
    depends_on("cereal@1.3:")  # the analyzer's reader processes hand their records back in its binary archive
    depends_on("fmt")
    depends_on("hwloc")
    depends_on("sqlite")  # the analyzer's results history (--history)
    depends_on("openssl")  # the report's sha256 of each thresholds file
    depends_on("kainjow-mustache")  # the report templates (this repository's package)

    depends_on("nccl", when="+nccl")
    depends_on("kokkos", when="+kokkos")
    depends_on("kokkos-kernels", when="+kokkos")
    # A Kokkos with a device backend must be the CUDA one the rest is built for.
    depends_on("kokkos+cuda+wrapper", when="+kokkos+cuda")
    depends_on("rdma-core", when="+verbs")
    depends_on("ucx", when="+ucx")
    depends_on("scalapack", when="+scalapack")

    # Each CMake option SHAKEDOWN_WITH_<NAME> and the variant that sets it.
    features = ("cuda", "nccl", "kokkos", "verbs", "ucx", "scalapack")

    def cmake_args(self):
        args = [
            self.define(f"SHAKEDOWN_WITH_{name.upper()}", "ON" if self.spec.satisfies(f"+{name}") else "OFF")
            for name in self.features
        ]
        args.append(self.define("SHAKEDOWN_BUILD_TESTS", self.run_tests))
        if self.spec.satisfies("+cuda"):
            # cuda_arch=80,90 builds machine code and PTX for each; the default set of the
            # project (80;89;90;100;120) applies only when none is given.
            archs = [arch for arch in self.spec.variants["cuda_arch"].value if arch != "none"]
            if archs:
                args.append(self.define("CMAKE_CUDA_ARCHITECTURES", ";".join(archs)))
        return args
