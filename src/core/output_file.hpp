// Writing a whole output file (summary.json, junit.xml, report.html, drain.txt, run.json) so that
// a reader never sees half of it and nothing that is not this program's file is touched: the text
// goes to a new temporary file in the same folder (created exclusively, never through a link),
// which is then renamed over the target. A target that exists and is not a regular file (a
// symbolic link, a FIFO, a device such as /dev/null, a folder) is refused, never followed and
// never replaced. Whatever fails, the temporary file is removed and an existing target is left as
// it was.
#pragma once

#include <filesystem>
#include <string_view>

namespace shakedown {

// Throws InputError "cannot write PATH: <why>" when PATH exists and is not a regular file ("it
// is a symbolic link; not replaced", "not a regular file (a FIFO); not replaced"), or cannot be
// looked at. A missing PATH is fine.
void check_output_target(const std::filesystem::path& path);

// How far a write goes before the rename. Either way a reader, or a process killed mid-write,
// never leaves half a file; only a power loss can lose a write that stayed in the page cache.
enum class Flush {
    to_disk,        // fsync before the rename: the results a run keeps
    to_page_cache,  // no fsync: a live view rewritten every few seconds, or the last words of a
                    // process that will be killed within a second (mpirun's SIGKILL follows its
                    // SIGTERM by one), where an fsync on a busy disk may not finish in time
};

// Checks the target as above, then writes `content` atomically. Throws InputError
// "cannot write PATH: <errno text>" ("No space left on device") when the folder is not writable
// or the file system is full.
void write_file_atomically(const std::filesystem::path& path, std::string_view content, Flush flush = Flush::to_disk);

}  // namespace shakedown
