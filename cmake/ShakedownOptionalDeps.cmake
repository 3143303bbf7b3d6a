# Finds the optional dependencies and defines one interface target per feature:
#   shakedown::cuda, shakedown::nccl, shakedown::kokkos, shakedown::verbs, shakedown::ucx,
#   shakedown::scalapack
# Code that needs a feature lives in files CMake adds only when the feature is on.

# --- CUDA -----------------------------------------------------------------------------
set(_found OFF)
set(_why "no CUDA compiler found (set CMAKE_CUDA_COMPILER or PATH)")
if(NOT SHAKEDOWN_WITH_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # Machine code for every generation a site may take delivery of (A100 80, L40S 89,
      # H100/H200 90, B200 100, RTX Blackwell 120) and PTX of the newest, which the driver
      # compiles for a later part; a GPU with none of these is refused at start-up (exit 2).
      # scripts/build.sh builds 90 only, for CI time.
      set(CMAKE_CUDA_ARCHITECTURES 80-real 89-real 90-real 100-real 120)
    endif()
    # One CUDA runtime per process: the shared one that CUDA::cudart and the libraries use.
    set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
    enable_language(CUDA)
    find_package(CUDAToolkit)
    if(CUDAToolkit_FOUND)
      set(_found ON)
      # Commas, not the list's semicolons: the reason is one field of a feature list entry.
      string(REPLACE ";" ", " _architectures "${CMAKE_CUDA_ARCHITECTURES}")
      set(_why "CUDA ${CUDAToolkit_VERSION}, architectures ${_architectures}")
    else()
      set(_why "nvcc found but not the CUDA toolkit libraries")
    endif()
  endif()
endif()
shakedown_resolve(CUDA ${_found} "${_why}")
add_library(shakedown_cuda_deps INTERFACE)
add_library(shakedown::cuda ALIAS shakedown_cuda_deps)
if(SHAKEDOWN_HAVE_CUDA)
  # CMake 3.25 knows no C++20 flag for nvcc ("CUDA20 dialect"): device code is C++17.
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  target_link_libraries(shakedown_cuda_deps INTERFACE CUDA::cudart CUDA::cublas CUDA::cublasLt CUDA::cuda_driver)
endif()

# --- NCCL -----------------------------------------------------------------------------
set(_found OFF)
set(_why "needs CUDA")
if(SHAKEDOWN_HAVE_CUDA)
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/include)
  find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/lib/x86_64-linux-gnu)
  if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
    set(_found ON)
    set(_why "${NCCL_LIBRARY}")
  else()
    set(_why "nccl.h or libnccl not found")
  endif()
endif()
shakedown_resolve(NCCL ${_found} "${_why}")
add_library(shakedown_nccl_deps INTERFACE)
add_library(shakedown::nccl ALIAS shakedown_nccl_deps)
if(SHAKEDOWN_HAVE_NCCL)
  target_include_directories(shakedown_nccl_deps INTERFACE ${NCCL_INCLUDE_DIR})
  target_link_libraries(shakedown_nccl_deps INTERFACE ${NCCL_LIBRARY} shakedown::cuda)
endif()

# --- Kokkos ---------------------------------------------------------------------------
# A standalone Kokkos 4 exports a usable Kokkos::kokkos; Debian's Trilinos-packaged Kokkos
# 3.4 exports one with a broken include path, so take KokkosKernels' variables there.
#
# A Kokkos with the CUDA backend (Kokkos_DEVICES has CUDA, as a site's Spack kokkos+cuda or
# bench/gpu/build-kokkos-cuda.sh installs it) is compiled the Kokkos way: only the translation
# units that include Kokkos go through its nvcc_wrapper (kokkos_compilation(TARGET ...)),
# the rest of the project stays g++. Kokkos::kokkos then carries nvcc flags, so no g++ target
# may take its compile usage requirements: shakedown::kokkos is empty there and the Kokkos
# sources are routed at the end of the configuration (_shakedown_kokkos_route below).
set(_found OFF)
set(_why "neither Kokkos nor KokkosKernels found")
set(SHAKEDOWN_KOKKOS_CUDA OFF)
add_library(shakedown_kokkos_deps INTERFACE)
add_library(shakedown::kokkos ALIAS shakedown_kokkos_deps)
if(NOT SHAKEDOWN_WITH_KOKKOS STREQUAL "OFF")
  # A CUDA Kokkos would route every compile command of the project through its launcher
  # (kokkos_compilation(GLOBAL)); the Kokkos sources are routed one target at a time below.
  if(NOT DEFINED Kokkos_LAUNCH_COMPILER)
    set(Kokkos_LAUNCH_COMPILER OFF)
  endif()
  find_package(KokkosKernels QUIET)
  find_package(Kokkos QUIET)
  string(REPLACE ";" "," _kokkos_devices "${Kokkos_DEVICES}")  # one summary field
  if(KokkosKernels_FOUND AND KokkosKernels_INCLUDE_DIRS MATCHES "trilinos")
    set(_found ON)
    set(_why "Trilinos Kokkos ${Kokkos_VERSION}, devices: ${_kokkos_devices}")
    target_include_directories(shakedown_kokkos_deps SYSTEM INTERFACE ${KokkosKernels_INCLUDE_DIRS})
    target_link_libraries(shakedown_kokkos_deps INTERFACE ${KokkosKernels_LIBRARIES} ${KokkosKernels_TPL_LIBRARIES})
  elseif(TARGET Kokkos::kokkos AND "CUDA" IN_LIST Kokkos_DEVICES)
    if(NOT TARGET Kokkos::kokkoskernels)
      message(FATAL_ERROR "Kokkos ${Kokkos_VERSION} with CUDA at ${Kokkos_DIR} but no KokkosKernels beside it "
                          "(dgemm_fp64 needs KokkosBlas; set KokkosKernels_ROOT)")
    endif()
    set(_found ON)
    set(SHAKEDOWN_KOKKOS_CUDA ON)
    # Kokkos asks for its nvcc flags on the link line too (-arch=sm_90 -DKOKKOS_DEPENDENCE),
    # which only a relocatable-device-code link needs; without RDC the executables link with
    # g++ like the rest of the project (the CUDA runtime comes from CUDA::cudart).
    set_property(TARGET Kokkos::kokkoscore PROPERTY INTERFACE_LINK_OPTIONS "")
    # Kokkos Kernels' host BLAS TPL calls crot_/zrot_, which OpenBLAS puts in its liblapack,
    # not its libblas; the Kokkos Kernels package names only libblas.
    find_library(SHAKEDOWN_KOKKOS_LAPACK NAMES liblapack.so.3 lapack)
    if(SHAKEDOWN_KOKKOS_LAPACK)
      set_property(TARGET Kokkos::kokkoskernels APPEND PROPERTY INTERFACE_LINK_LIBRARIES "${SHAKEDOWN_KOKKOS_LAPACK}")
    endif()
    set(_why "Kokkos ${Kokkos_VERSION}, devices: ${_kokkos_devices}, Kokkos sources through ${Kokkos_CXX_COMPILER}")
  elseif(TARGET Kokkos::kokkos)
    set(_found ON)
    set(_why "Kokkos ${Kokkos_VERSION}, devices: ${_kokkos_devices}")
    target_link_libraries(shakedown_kokkos_deps INTERFACE Kokkos::kokkos)
    if(TARGET Kokkos::kokkoskernels)
      target_link_libraries(shakedown_kokkos_deps INTERFACE Kokkos::kokkoskernels)
    endif()
  endif()
endif()
shakedown_resolve(KOKKOS ${_found} "${_why}")

# With a CUDA Kokkos, once every target exists (deferred to the end of the top directory):
# the sources that include Kokkos (by convention their file names contain "kokkos":
# stream_host_kokkos.cpp, kokkos_runtime.cpp, versions_kokkos.cpp, ...) are compiled through
# nvcc_wrapper. A target made of such sources only is routed whole (it may self-register, as
# kokkos_runtime.cpp does); a mixed target keeps its g++ sources and gets the Kokkos ones
# from a static library TARGET_kokkos with the same include paths, definitions and links
# (those sources must not self-register: an archive drops objects nothing references).
function(_shakedown_kokkos_route target)
  get_target_property(_dir ${target} SOURCE_DIR)
  get_target_property(_sources ${target} SOURCES)
  set(_kokkos "")
  set(_rest "")
  foreach(_src IN LISTS _sources)
    get_filename_component(_name "${_src}" NAME)
    if(_name MATCHES "kokkos[^/]*\\.cpp$")
      if(NOT IS_ABSOLUTE "${_src}")
        set(_src "${_dir}/${_src}")
      endif()
      list(APPEND _kokkos "${_src}")
    else()
      list(APPEND _rest "${_src}")
    endif()
  endforeach()
  if(NOT _kokkos)
    return()
  endif()
  if(NOT _rest)
    target_link_libraries(${target} PRIVATE Kokkos::kokkos Kokkos::kokkoskernels)
    kokkos_compilation(TARGET ${target})
    return()
  endif()
  set_property(TARGET ${target} PROPERTY SOURCES ${_rest})
  add_library(${target}_kokkos STATIC ${_kokkos})
  # The parent's links, but an OBJECT library only for its usage requirements: linking it
  # would put its objects into the archive a second time.
  get_target_property(_libs ${target} LINK_LIBRARIES)
  foreach(_lib IN LISTS _libs)
    if(_lib MATCHES "^::@" OR _lib STREQUAL "")
      continue()
    endif()
    set(_object OFF)
    if(TARGET ${_lib})
      get_target_property(_lib_type ${_lib} TYPE)
      if(_lib_type STREQUAL "OBJECT_LIBRARY")
        set(_object ON)
      endif()
    endif()
    if(_object)
      target_include_directories(${target}_kokkos PRIVATE $<TARGET_PROPERTY:${_lib},INTERFACE_INCLUDE_DIRECTORIES>)
      target_compile_definitions(${target}_kokkos PRIVATE $<TARGET_PROPERTY:${_lib},INTERFACE_COMPILE_DEFINITIONS>)
    else()
      target_link_libraries(${target}_kokkos PRIVATE ${_lib})
    endif()
  endforeach()
  target_link_libraries(${target}_kokkos PRIVATE Kokkos::kokkos Kokkos::kokkoskernels)
  target_include_directories(${target}_kokkos PRIVATE $<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>)
  target_compile_definitions(${target}_kokkos PRIVATE $<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>)
  target_compile_features(${target}_kokkos PRIVATE cxx_std_20)
  kokkos_compilation(TARGET ${target}_kokkos)
  target_link_libraries(${target} PRIVATE ${target}_kokkos)
endfunction()

function(_shakedown_kokkos_route_directory dir)
  get_property(_targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(_target IN LISTS _targets)
    get_target_property(_type ${_target} TYPE)
    if(_type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
      _shakedown_kokkos_route(${_target})
    endif()
  endforeach()
  get_property(_subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(_sub IN LISTS _subdirs)
    _shakedown_kokkos_route_directory("${_sub}")
  endforeach()
endfunction()

function(_shakedown_kokkos_route_all)
  _shakedown_kokkos_route_directory("${CMAKE_SOURCE_DIR}")
endfunction()

if(SHAKEDOWN_KOKKOS_CUDA)
  cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _shakedown_kokkos_route_all)
endif()

# --- libibverbs -----------------------------------------------------------------------
set(_found OFF)
set(_why "libibverbs (rdma-core) headers or library not found")
add_library(shakedown_verbs_deps INTERFACE)
add_library(shakedown::verbs ALIAS shakedown_verbs_deps)
if(NOT SHAKEDOWN_WITH_VERBS STREQUAL "OFF")
  find_path(IBVERBS_INCLUDE_DIR infiniband/verbs.h)
  find_library(IBVERBS_LIBRARY ibverbs)
  if(IBVERBS_INCLUDE_DIR AND IBVERBS_LIBRARY)
    set(_found ON)
    set(_why "${IBVERBS_LIBRARY}")
    target_include_directories(shakedown_verbs_deps INTERFACE ${IBVERBS_INCLUDE_DIR})
    target_link_libraries(shakedown_verbs_deps INTERFACE ${IBVERBS_LIBRARY})
  endif()
endif()
shakedown_resolve(VERBS ${_found} "${_why}")

# --- UCX ------------------------------------------------------------------------------
set(_found OFF)
set(_why "UCX (ucp) not found")
add_library(shakedown_ucx_deps INTERFACE)
add_library(shakedown::ucx ALIAS shakedown_ucx_deps)
if(NOT SHAKEDOWN_WITH_UCX STREQUAL "OFF")
  find_package(ucx QUIET)
  if(ucx_FOUND AND TARGET ucx::ucp)
    set(_found ON)
    set(_why "UCX ${ucx_VERSION}")
    target_link_libraries(shakedown_ucx_deps INTERFACE ucx::ucp ucx::ucs)
  endif()
endif()
shakedown_resolve(UCX ${_found} "${_why}")

# --- ScaLAPACK (with BLACS) -----------------------------------------------------------
# Debian's libscalapack-openmpi-dev: the library alone (its pkg-config file requires an "mpi"
# module Open MPI does not install); it brings its own LAPACK and BLAS.
set(_found OFF)
set(_why "libscalapack-openmpi (or libscalapack) not found")
add_library(shakedown_scalapack_deps INTERFACE)
add_library(shakedown::scalapack ALIAS shakedown_scalapack_deps)
if(NOT SHAKEDOWN_WITH_SCALAPACK STREQUAL "OFF")
  find_library(SCALAPACK_LIBRARY NAMES scalapack-openmpi scalapack)
  if(SCALAPACK_LIBRARY)
    set(_found ON)
    set(_why "${SCALAPACK_LIBRARY}")
    target_link_libraries(shakedown_scalapack_deps INTERFACE ${SCALAPACK_LIBRARY} MPI::MPI_CXX)
  endif()
endif()
shakedown_resolve(SCALAPACK ${_found} "${_why}")
