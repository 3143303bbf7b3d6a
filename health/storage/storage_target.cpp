#include "health/storage/storage_target.hpp"

#include "health/storage/scratch_file.hpp"

#include "core/errors.hpp"

#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <fmt/format.h>

#include <array>
#include <optional>
#include <system_error>

namespace shakedown::health {
namespace {

struct FileSystemMagic {
    unsigned long magic;  // statfs f_type, from <linux/magic.h> and the file systems' sources
    const char* name;
    bool memory;
};

constexpr std::array<FileSystemMagic, 12> known_file_systems{{
    {0xEF53, "ext4", false},        {0x58465342, "xfs", false},       {0x9123683E, "btrfs", false},
    {0x01021994, "tmpfs", true},    {0x858458F6, "ramfs", true},      {0x6969, "nfs", false},
    {0x0BD00BD0, "lustre", false},  {0x47504653, "gpfs", false},      {0x65735546, "fuse", false},
    {0x794C7630, "overlayfs", false}, {0x2FC12FC1, "zfs", false},     {0xFF534D42, "cifs", false},
}};

std::optional<unsigned long> file_system_magic(const std::filesystem::path& folder) {
    struct statfs info {};
    if (::statfs(folder.c_str(), &info) != 0) return std::nullopt;
    return static_cast<unsigned long>(info.f_type);
}

}  // namespace

std::filesystem::path resolve_storage_target(const std::string& target) {
    return std::filesystem::absolute(target.empty() ? std::filesystem::current_path() : std::filesystem::path(target));
}

void check_storage_target(const std::filesystem::path& folder) {
    std::error_code error;
    const auto status = std::filesystem::status(folder, error);
    if (!std::filesystem::exists(status))
        throw InputError(fmt::format("storage: target '{}' does not exist", folder.string()));
    if (!std::filesystem::is_directory(status))
        throw InputError(fmt::format("storage: target '{}' is not a directory", folder.string()));
    struct statvfs mount {};
    if (::statvfs(folder.c_str(), &mount) == 0 && (mount.f_flag & ST_RDONLY) != 0)
        throw InputError(fmt::format("storage: target '{}' is on a read-only file system", folder.string()));
    // Permission bits do not stop root, and some file systems refuse creation regardless:
    // only creating a file says for certain. The probe removes itself.
    try {
        const ScratchFile probe(folder, ".shakedown-storage-probe", false);
    } catch (const std::system_error& refused) {
        throw InputError(fmt::format("storage: target '{}' is not writable: {}", folder.string(),
                                     refused.code().message()));
    }
}

std::string file_system_name(const std::filesystem::path& folder) {
    const auto magic = file_system_magic(folder);
    if (!magic) return "unknown";
    for (const auto& known : known_file_systems)
        if (known.magic == *magic) return known.name;
    return fmt::format("0x{:x}", *magic);
}

std::filesystem::path storage_target_of(const TestParams& params) {
    return resolve_storage_target(params.optional_text("target").value_or(""));
}

std::string cache_mode_of(const std::filesystem::path& folder, bool direct) {
    return is_memory_file_system(folder) ? "memory_file_system" : direct ? "o_direct" : "fadvise_dontneed";
}

void record_cache_mode(std::map<std::string, std::string>& parameters, std::string_view cache_mode) {
    parameters["cache_mode"] = std::string(cache_mode);
    if (cache_mode == "memory_file_system")
        parameters["cache_note"] = "tmpfs/ramfs: the file system is memory, figures are RAM copies";
}

bool is_memory_file_system(const std::filesystem::path& folder) {
    const auto magic = file_system_magic(folder);
    for (const auto& known : known_file_systems)
        if (magic && known.magic == *magic) return known.memory;
    return false;
}

}  // namespace shakedown::health
