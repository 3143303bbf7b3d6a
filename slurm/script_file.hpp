// Writing a job script without ever losing one: `generate --script` and `submit` create the file
// new or not at all.
#pragma once

#include <filesystem>
#include <string>

namespace shakedown::slurm {

// Creates `path` as a new file holding `text`, executable by owner and group; false when a file
// of that name exists (never opened, never overwritten, never followed when it is a link).
// Throws InputError with the reason for any other failure, removing what it made.
bool create_script(const std::filesystem::path& path, const std::string& text);

}  // namespace shakedown::slurm
