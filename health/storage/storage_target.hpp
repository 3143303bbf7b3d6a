// Where the storage test writes: the folder named by the `target` parameter (the current
// directory when empty), checked before any rank starts work so that a missing or read-only
// target is an input error (exit 2), not a test failure an hour into the run.
#pragma once

#include "core/params.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

namespace shakedown::health {

// The folder `target` names ("" = the current directory), made absolute.
std::filesystem::path resolve_storage_target(const std::string& target);
// The folder a storage test's `target` parameter names (storage, checkpoint_io).
std::filesystem::path storage_target_of(const TestParams& params);

// Throws InputError with one line when `folder` does not exist, is not a directory, sits on
// a read-only mount, or refuses a new file (permissions; root included, by a real probe).
void check_storage_target(const std::filesystem::path& folder);

// What the file system is, for the result's parameters: "ext4", "tmpfs", "nfs", "lustre",
// ... or the magic number in hex.
std::string file_system_name(const std::filesystem::path& folder);
bool is_memory_file_system(const std::filesystem::path& folder);  // tmpfs/ramfs: RAM is the storage

// How a storage test's figures leave the page cache out: "memory_file_system" (tmpfs/ramfs: they
// are RAM copies), "o_direct" (`direct` and the file system takes it) or "fadvise_dontneed".
std::string cache_mode_of(const std::filesystem::path& folder, bool direct);
// The result's parameters `cache_mode` and, on a memory file system, `cache_note` saying so.
void record_cache_mode(std::map<std::string, std::string>& parameters, std::string_view cache_mode);

}  // namespace shakedown::health
