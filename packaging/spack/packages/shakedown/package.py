# Spack package for shakedown. Use it from this repository:
#   spack repo add packaging/spack && spack install shakedown +cuda cuda_arch=90
# Its variants are the CMake options of cmake/ShakedownOptions.cmake, one for one, and its
# dependencies those of the CMakeLists.txt files and cmake/ShakedownOptionalDeps.cmake;
# tests/install/spack_package_test.py checks both, so a new option cannot be left out here.
#
# packaging/spack is a Package API v1.0 repository (repo.yaml names no api), which Spack 0.2x
# and 1.x both load: Spack 1.x hands a v1.0 package the build-system classes (CMakePackage,
# CudaPackage) itself, so the one star import below is all it needs. Moving to the v2 layout
# (spack repo migrate) would change the path docs/install.md tells a site to add.

from spack.package import *


class Shakedown(CMakePackage, CudaPackage):
    """Acceptance tests for HPC and GPU clusters: one MPI job inventories every node, runs the
    tests of a suite, writes per-rank HDF5 traces, and shakedown-analyze says PASS, WARN or FAIL
    per node with the reason."""

    # The repository has no published address yet: a site points these at its own mirror
    # (or builds from a checkout: spack dev-build / spack develop shakedown@main).
    homepage = "https://example.invalid/shakedown"
    git = "https://example.invalid/shakedown.git"

    # No release is tagged yet, so the branch is the only version. No license() either: the
    # repository carries no LICENSE or COPYING file to take an SPDX identifier from, and no
    # maintainers(): it names no GitHub handle for one.
    version("main", branch="main")

    # cuda (and cuda_arch) come from CudaPackage.
    variant("nccl", default=True, when="+cuda", description="NCCL collectives (needs CUDA)")
    variant("kokkos", default=True, description="Kokkos science kernels (with KokkosKernels for dgemm_fp64)")
    variant("verbs", default=True, description="libibverbs RDMA tests")
    variant("ucx", default=False, description="UCX transport tests")
    variant("scalapack", default=True, description="ScaLAPACK host LU (lu_fp64)")

    # Spack 1.x gives a package a compiler only for the languages it asks for: project()
    # enables C and C++. CUDA's nvcc comes with the cuda package CudaPackage adds under +cuda.
    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("cmake@3.24:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("help2man", type="build")  # man pages from the binaries' --help
    depends_on("googletest", type="test")

    depends_on("mpi")
    # find_package(HDF5 COMPONENTS C): the C API, each rank writing its own file, so a serial
    # or a parallel HDF5 serves (forcing ~mpi would refuse a site's parallel one and build a
    # second HDF5), and no high-level (hl) or C++ library. A non-thread-safe HDF5 is fine (the
    # trace writer serialises its calls). 1.10.5 brought H5Dget_num_chunks and
    # H5Dget_chunk_info_by_coord, which src/trace/hdf5_io.cpp calls without a version guard.
    depends_on("hdf5@1.10.5:")
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
    # The GPU libraries must carry device code for the GPUs shakedown is built for, so each
    # cuda_arch goes down to them. Kokkos builds for one architecture only: +kokkos+cuda takes
    # a single cuda_arch (several concretize only with ~kokkos). The sources that include Kokkos
    # are compiled through its nvcc_wrapper (kokkos_compilation in
    # cmake/ShakedownOptionalDeps.cmake), hence +wrapper.
    for arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos+cuda+wrapper cuda_arch={arch}", when=f"+kokkos+cuda cuda_arch={arch}")
        depends_on(f"kokkos-kernels+cuda cuda_arch={arch}", when=f"+kokkos+cuda cuda_arch={arch}")
        depends_on(f"nccl+cuda cuda_arch={arch}", when=f"+nccl+cuda cuda_arch={arch}")
    # Without +cuda there is no CUDA toolkit to build or run a CUDA Kokkos against, and the
    # configure step would route the Kokkos sources through nvcc_wrapper all the same.
    depends_on("kokkos~cuda", when="+kokkos~cuda")
    depends_on("kokkos-kernels~cuda", when="+kokkos~cuda")
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
            # cuda_arch=80,90 (with ~kokkos) builds machine code and PTX for each; the default
            # set of the project (80;89;90;100;120) applies only when none is given.
            archs = [arch for arch in self.spec.variants["cuda_arch"].value if arch != "none"]
            if archs:
                args.append(self.define("CMAKE_CUDA_ARCHITECTURES", ";".join(archs)))
        return args
