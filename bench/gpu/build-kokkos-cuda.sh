#!/usr/bin/env bash
# Builds Kokkos 4.6.01 (CUDA sm_90 + Serial, static) and Kokkos Kernels 4.6.01
# (BLAS component only, cuBLAS and system BLAS TPLs, no ETI)
# outside the repo and installs both into one prefix, the layout a site's Spack
# kokkos+cuda / kokkos-kernels+cublas provides. shakedown is then configured with
# -DKokkos_ROOT=PREFIX -DKokkosKernels_ROOT=PREFIX.
#
# usage: bench/gpu/build-kokkos-cuda.sh [PREFIX]     (default /opt/kokkos-cuda)
# env:   SRC=/opt/src         where the source trees are unpacked
#        ARCHIVES=../shared/third_party   kokkos-4.6.01.tar.gz, kokkos-kernels-4.6.01.tar.gz
#        JOBS=2               build parallelism
#        CUDA_HOME=/usr/local/cuda
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
prefix=${1:-/opt/kokkos-cuda}
src=${SRC:-/opt/src}
archives=${ARCHIVES:-$repo/../shared/third_party}
jobs=${JOBS:-2}
cuda=${CUDA_HOME:-/usr/local/cuda}
kokkos=$src/kokkos-4.6.01
kk=$src/kokkos-kernels-4.6.01

mkdir -p "$src"
[ -d "$kokkos" ] || tar -C "$src" -xzf "$archives/kokkos-4.6.01.tar.gz"
[ -d "$kk" ] || tar -C "$src" -xzf "$archives/kokkos-kernels-4.6.01.tar.gz"

# Kokkos 4.6.01 predates CUDA 13, which takes a cudaMemLocation in cudaMemAdvise
# and cudaMemPrefetchAsync; the patch keeps the old calls below CUDA 13.
if ! grep -q 'CUDA 13 takes edge data' "$kokkos/core/src/Cuda/Kokkos_Cuda_Instance.hpp"; then
  patch -d "$kokkos" -p1 < "$here/kokkos-4.6.01-cuda13.patch"
fi

# nvcc_wrapper compiles for sm_70 unless told otherwise, and CUDA 13 no longer has
# sm_70: the installed wrapper defaults to sm_90 so that a consumer's compile or
# link line without -arch (CMake's compiler checks, kokkos_compilation links) works.
export NVCC_WRAPPER_DEFAULT_ARCH=sm_90
sed -i 's/^default_arch="sm_70"$/default_arch="sm_90"/' "$kokkos/bin/nvcc_wrapper"

export PATH=$cuda/bin:$PATH
export CUDA_ROOT=$cuda

# Kokkos core. The C++ compiler is Kokkos' nvcc_wrapper (host compiler g++), so the
# installed package records it and kokkos_compilation() routes a consumer's
# Kokkos targets through it while the rest of the consumer stays g++.
# Static libraries: the GPU bundle needs no extra shared objects.
# OpenMP off: each rank is one process per GPU, the host space is Serial.
cmake -S "$kokkos" -B "$src/build-kokkos-cuda" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DCMAKE_CXX_COMPILER="$kokkos/bin/nvcc_wrapper" \
  -DCMAKE_CXX_STANDARD=20 \
  -DCMAKE_CXX_EXTENSIONS=OFF \
  -DBUILD_SHARED_LIBS=OFF \
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
  -DKokkos_ENABLE_SERIAL=ON \
  -DKokkos_ENABLE_OPENMP=OFF \
  -DKokkos_ENABLE_CUDA=ON \
  -DKokkos_ENABLE_CUDA_LAMBDA=ON \
  -DKokkos_ARCH_HOPPER90=ON \
  -DKokkos_ENABLE_TESTS=OFF \
  -DKokkos_ENABLE_EXAMPLES=OFF
cmake --build "$src/build-kokkos-cuda" -j "$jobs"
cmake --install "$src/build-kokkos-cuda"

# Kokkos Kernels: only the BLAS component, cuBLAS as the TPL for gemm on Cuda and the
# system BLAS (Debian: OpenBLAS through libblas.so) for gemm on the host, as the Debian
# build has (no cuSPARSE/cuSOLVER/LAPACK: nothing uses them). No explicit instantiations:
# shakedown calls only gemm, on double LayoutLeft views, and both its paths are TPL calls
# (Kokkos Kernels picks the TPL before any ETI), so pre-instantiating the native kernels
# (81 nvcc compilations for double/LayoutLeft on Cuda and Serial alone) buys nothing.
# ETI=minimal instead: -DKokkosKernels_INST_DOUBLE=ON -DKokkosKernels_INST_LAYOUTLEFT=ON.
cmake -S "$kk" -B "$src/build-kokkos-kernels-cuda" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DCMAKE_CXX_COMPILER="$kokkos/bin/nvcc_wrapper" \
  -DCMAKE_CXX_STANDARD=20 \
  -DCMAKE_CXX_EXTENSIONS=OFF \
  -DBUILD_SHARED_LIBS=OFF \
  -DKokkos_ROOT="$prefix" \
  -DKokkosKernels_ENABLE_ALL_COMPONENTS=OFF \
  -DKokkosKernels_ENABLE_COMPONENT_BLAS=ON \
  -DKokkosKernels_ENABLE_TPL_CUBLAS=ON \
  -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF \
  -DKokkosKernels_ENABLE_TPL_CUSOLVER=OFF \
  -DKokkosKernels_ENABLE_TPL_BLAS=ON \
  -DKokkosKernels_ENABLE_TPL_LAPACK=OFF \
  -DKokkosKernels_ADD_DEFAULT_ETI=OFF \
  -DKokkosKernels_INST_DOUBLE=OFF \
  -DKokkosKernels_INST_FLOAT=OFF \
  -DKokkosKernels_INST_COMPLEX_DOUBLE=OFF \
  -DKokkosKernels_INST_COMPLEX_FLOAT=OFF \
  -DKokkosKernels_INST_LAYOUTLEFT=OFF \
  -DKokkosKernels_INST_LAYOUTRIGHT=OFF \
  -DKokkosKernels_INST_EXECSPACE_CUDA=ON \
  -DKokkosKernels_INST_MEMSPACE_CUDASPACE=ON \
  -DKokkosKernels_INST_MEMSPACE_CUDAUVMSPACE=OFF \
  -DKokkosKernels_INST_EXECSPACE_SERIAL=ON \
  -DKokkosKernels_INST_MEMSPACE_HOSTSPACE=ON \
  -DKokkosKernels_ENABLE_TESTS=OFF \
  -DKokkosKernels_ENABLE_EXAMPLES=OFF \
  -DKokkosKernels_ENABLE_PERFTESTS=OFF \
  -DKokkosKernels_ENABLE_BENCHMARK=OFF \
  -DKokkosKernels_ENABLE_DOCS=OFF
cmake --build "$src/build-kokkos-kernels-cuda" -j "$jobs"
cmake --install "$src/build-kokkos-kernels-cuda"

echo "Kokkos + Kokkos Kernels (CUDA sm_90, Serial) installed in $prefix"
