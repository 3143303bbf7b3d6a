// Where the storage test writes: the folder named by the `target` parameter (the current
// directory when empty), checked before any rank starts work so that a missing or read-only
// target is an input error (exit 2), not a test failure an hour into the run.
#pragma once

#include <filesystem>
#include <string>

namespace shakedown::health {

// The folder `target` names ("" = the current directory), made absolute.
std::filesystem::path resolve_storage_target(const std::string& target);

// Throws InputError with one line when `folder` does not exist, is not a directory, sits on
// a read-only mount, or refuses a new file (permissions; root included, by a real probe).
void check_storage_target(const std::filesystem::path& folder);

// What the file system is, for the result's parameters: "ext4", "tmpfs", "nfs", "lustre",
// ... or the magic number in hex.
std::string file_system_name(const std::filesystem::path& folder);
bool is_memory_file_system(const std::filesystem::path& folder);  // tmpfs/ramfs: RAM is the storage

}  // namespace shakedown::health
