// Versions of everything in use, as the libraries report them at run time (the library a
// rank loads can differ from the headers it was built with).
#include "inventory/inventory_sections.hpp"

#include "core/gpu_runtime.hpp"
#include "inventory/inventory_names.hpp"

#include <fmt/format.h>
#include <hdf5.h>
#include <mpi.h>

#include <array>
#include <cstring>

namespace shakedown::inventory_detail {

std::string first_line(std::string_view text) {
    const auto end = text.find_first_of("\r\n");
    std::string_view line = text.substr(0, end);
    while (!line.empty() && (line.back() == ' ' || line.back() == ',')) line.remove_suffix(1);
    return std::string(line);
}

nlohmann::json versions_section(const HwlocTopology& topology, const Nvml* nvml) {
    nlohmann::json versions;
    namespace key = inventory_names::versions;
    versions[key::shakedown] = SHAKEDOWN_VERSION;
    versions["compiler"] = SHAKEDOWN_COMPILER;

    // Both may be called before MPI_Init and after MPI_Finalize (MPI-3.1, 8.1.1).
    std::array<char, MPI_MAX_LIBRARY_VERSION_STRING> library{};
    int length = 0;
    MPI_Get_library_version(library.data(), &length);
    // Up to the terminator: Open MPI counts it in `length`, and a NUL inside the text would cut
    // every later line of a printed page.
    versions[key::mpi] = first_line(std::string_view(library.data(), std::strlen(library.data())));
    int major = 0;
    int minor = 0;
    MPI_Get_version(&major, &minor);
    versions["mpi_standard"] = fmt::format("{}.{}", major, minor);

    unsigned hdf5_major = 0, hdf5_minor = 0, hdf5_release = 0;
    H5get_libversion(&hdf5_major, &hdf5_minor, &hdf5_release);
    versions["hdf5"] = fmt::format("{}.{}.{}", hdf5_major, hdf5_minor, hdf5_release);

    const char* hwloc = hwloc_obj_get_info_by_name(hwloc_get_root_obj(topology.get()), "hwlocVersion");
    const unsigned api = hwloc_get_api_version();
    versions["hwloc"] = hwloc != nullptr ? std::string(hwloc)
                                         : fmt::format("API {}.{}.{}", api >> 16, (api >> 8) & 0xff, api & 0xff);

    versions[key::cuda] = gpu_runtime_version();
    versions[key::nvidia_driver] = nvml != nullptr ? nvml->driver_version().value_or("unknown") : "none (no NVML)";
    versions[key::nccl] = nccl_version().value_or("none (built without NCCL)");
    versions[key::kokkos] = kokkos_version().value_or("none (built without Kokkos)");
    return versions;
}

}  // namespace shakedown::inventory_detail
