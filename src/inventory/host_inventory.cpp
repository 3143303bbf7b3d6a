// OS, CPU and memory: hwloc for the topology, /proc and /sys for what hwloc does not carry
// (flags, clock limits, the distribution name).
#include "inventory/inventory_sections.hpp"

#include "inventory/inventory_names.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <sstream>

namespace shakedown::inventory_detail {
namespace {

// CPUID leaf 0x16 (Intel since Skylake): the maximum frequency in MHz, 0 when not reported.
unsigned cpuid_max_mhz() {
#if defined(__x86_64__) || defined(__i386__)
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid_max(0, nullptr) < 0x16) return 0;
    __cpuid(0x16, eax, ebx, ecx, edx);
    return ebx & 0xffff;
#else
    return 0;
#endif
}

std::string trim(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\"'");
    if (first == std::string_view::npos) return {};
    const auto last = text.find_last_not_of(" \t\"'\r");
    return std::string(text.substr(first, last - first + 1));
}

// "key : value" lines of the first processor block of /proc/cpuinfo.
std::map<std::string, std::string> first_cpuinfo_block() {
    std::map<std::string, std::string> fields;
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.empty()) {
            if (!fields.empty()) break;
            continue;
        }
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        fields.emplace(trim(std::string_view(line).substr(0, colon)), trim(std::string_view(line).substr(colon + 1)));
    }
    return fields;
}

std::optional<std::string> read_first_line(const std::string& path) {
    std::ifstream file(path);
    std::string line;
    if (!std::getline(file, line)) return std::nullopt;
    return line;
}

std::vector<std::string> split_words(const std::string& text) {
    std::vector<std::string> words;
    std::istringstream stream(text);
    for (std::string word; stream >> word;) words.push_back(word);
    return words;
}

// Flags that decide which vector kernels a BLAS or compiler can use: {cpuinfo name, shown as}.
constexpr std::array<std::pair<std::string_view, std::string_view>, 29> vector_flag_names{{
    {"sse", "sse"},           {"sse2", "sse2"},           {"pni", "sse3"},
    {"ssse3", "ssse3"},       {"sse4_1", "sse4_1"},       {"sse4_2", "sse4_2"},
    {"avx", "avx"},           {"avx2", "avx2"},           {"fma", "fma"},
    {"f16c", "f16c"},         {"avx512f", "avx512f"},     {"avx512dq", "avx512dq"},
    {"avx512cd", "avx512cd"}, {"avx512bw", "avx512bw"},   {"avx512vl", "avx512vl"},
    {"avx512ifma", "avx512ifma"}, {"avx512_vnni", "avx512_vnni"}, {"avx512_bf16", "avx512_bf16"},
    {"avx512_fp16", "avx512_fp16"}, {"avx_vnni", "avx_vnni"}, {"amx_tile", "amx_tile"},
    {"amx_bf16", "amx_bf16"}, {"amx_int8", "amx_int8"},   {"asimd", "asimd"},
    {"asimddp", "asimddp"},   {"sve", "sve"},             {"sve2", "sve2"},
    {"bf16", "bf16"},         {"i8mm", "i8mm"},
}};

int count_of(const HwlocTopology& topology, hwloc_obj_type_t type) {
    return std::max(0, hwloc_get_nbobjs_by_type(topology.get(), type));
}

}  // namespace

nlohmann::json os_section() {
    namespace key = inventory_names::os;
    nlohmann::json os{{key::pretty_name, "unknown"}};
    std::ifstream release("/etc/os-release");
    for (std::string line; std::getline(release, line);)
        if (line.starts_with("PRETTY_NAME=")) os[key::pretty_name] = trim(std::string_view(line).substr(12));
    utsname names{};
    if (uname(&names) == 0) {
        os[key::kernel] = names.release;
        os["kernel_version"] = names.version;
        os["machine"] = names.machine;
    }
    return os;
}

// The board and its firmware as the kernel's DMI table names them (world-readable; a VM's may be
// the hypervisor's). Each field absent where the file is: no DMI table, another architecture.
nlohmann::json board_section(const std::string& dmi_folder) {
    namespace key = inventory_names::board;
    nlohmann::json board = nlohmann::json::object();
    for (const auto& [field, file] : {std::pair{key::vendor, "board_vendor"}, std::pair{key::product, "product_name"},
                                      std::pair{key::bios_version, "bios_version"}})
        if (const auto line = read_first_line(dmi_folder + "/" + file); line && !trim(*line).empty())
            board[field] = trim(*line);
    return board;
}

nlohmann::json cpu_section(const HwlocTopology& topology) {
    const auto cpuinfo = first_cpuinfo_block();
    auto field = [&cpuinfo](const std::string& key) -> std::string {
        auto it = cpuinfo.find(key);
        return it != cpuinfo.end() ? it->second : std::string{};
    };

    nlohmann::json cpu;
    const hwloc_obj_t package = hwloc_get_obj_by_type(topology.get(), HWLOC_OBJ_PACKAGE, 0);
    const char* hwloc_model = package != nullptr ? hwloc_obj_get_info_by_name(package, "CPUModel") : nullptr;
    const char* hwloc_vendor = package != nullptr ? hwloc_obj_get_info_by_name(package, "CPUVendor") : nullptr;
    cpu["model"] = hwloc_model != nullptr ? trim(hwloc_model)
                   : !field("model name").empty() ? field("model name")
                                                  : std::string("unknown");
    cpu["vendor"] = hwloc_vendor != nullptr ? std::string(hwloc_vendor) : field("vendor_id");
    cpu["sockets"] = std::max(1, count_of(topology, HWLOC_OBJ_PACKAGE));
    cpu["cores"] = count_of(topology, HWLOC_OBJ_CORE);
    cpu["pus"] = count_of(topology, HWLOC_OBJ_PU);
    cpu["numa_nodes"] = std::max(1, count_of(topology, HWLOC_OBJ_NUMANODE));
    // What this process may run on (cgroup/Slurm allocation), next to the whole machine.
    cpu["allowed_pus"] = hwloc_bitmap_weight(hwloc_topology_get_allowed_cpuset(topology.get()));

    // The highest clock the OS allows (turbo included) from cpufreq, else the maximum the CPU
    // reports itself (CPUID leaf 0x16, Intel); VMs often lack both and only show the current
    // clock in /proc/cpuinfo, which undercounts a boosting CPU: say which one this is.
    if (auto khz = read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")) {
        cpu["max_mhz"] = std::stod(*khz) / 1000.0;
        cpu["max_mhz_source"] = "cpufreq";
    } else if (const unsigned mhz = cpuid_max_mhz(); mhz > 0) {
        cpu["max_mhz"] = static_cast<double>(mhz);
        cpu["max_mhz_source"] = "cpuid";
    } else if (!field("cpu MHz").empty()) {
        cpu["max_mhz"] = std::stod(field("cpu MHz"));
        cpu["max_mhz_source"] = "proc_cpuinfo";
    } else {
        cpu["max_mhz"] = 0.0;
        cpu["max_mhz_source"] = "unknown";
    }

    // x86 calls them "flags", Arm "Features".
    const auto flags = split_words(!field("flags").empty() ? field("flags") : field("Features"));
    cpu["flags"] = flags;
    nlohmann::json vector_flags = nlohmann::json::array();
    for (const auto& [name, shown_as] : vector_flag_names)
        if (std::find(flags.begin(), flags.end(), name) != flags.end()) vector_flags.push_back(shown_as);
    cpu["vector_flags"] = vector_flags;
    return cpu;
}

// total_bytes is the larger of the NUMA nodes' sum (hwloc, from sysfs) and the OS's total
// (sysconf, from /proc/meminfo). They agree on a plain machine; in a VM whose memory is
// hot-plugged after boot (seen on the Firecracker GPU host: 8.2 GiB in the node, 251 GiB in
// /proc/meminfo) the node's count lags, and sizing by it refused runs that fit.
nlohmann::json memory_section(const HwlocTopology& topology) {
    nlohmann::json memory;
    const std::uint64_t numa_total = hwloc_get_root_obj(topology.get())->total_memory;
    const auto pages = sysconf(_SC_PHYS_PAGES);
    const auto page_bytes = sysconf(_SC_PAGESIZE);
    const std::uint64_t os_total =
        pages > 0 && page_bytes > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_bytes) : 0;
    memory["total_bytes"] = std::max(numa_total, os_total);
    memory["numa_total_bytes"] = numa_total;
    memory["os_total_bytes"] = os_total;
    nlohmann::json numa = nlohmann::json::array();
    for (hwloc_obj_t node = hwloc_get_next_obj_by_type(topology.get(), HWLOC_OBJ_NUMANODE, nullptr); node != nullptr;
         node = hwloc_get_next_obj_by_type(topology.get(), HWLOC_OBJ_NUMANODE, node)) {
        numa.push_back({{"index", node->os_index},
                        {"bytes", node->attr->numanode.local_memory},
                        {"pus", hwloc_bitmap_weight(node->cpuset)}});
    }
    memory["numa"] = numa;
    return memory;
}

}  // namespace shakedown::inventory_detail
