// Writing a whole output file (summary.json, junit.xml, report.html, drain.txt, run.json) so that
// a reader never sees half of it and nothing that is not this program's file is touched: the text
// goes to a new temporary file in the same folder (created exclusively, never through a link),
// which is then renamed over the target. A target that exists and is not a regular file (a
// symbolic link, a FIFO, a device such as /dev/null, a folder) is refused, never followed and
// never replaced. Whatever fails, the temporary file is removed and an existing target is left as
// it was.
#pragma once

#include <filesystem>
#include <memory>
#include <string_view>
#include <vector>

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

// Several files that are one result (an analysis's summary.json, junit.xml, report.html and
// drain.txt): every file is first written whole, and flushed, under its temporary name; only then
// are they renamed into place, one right after another. A process killed while writing (the slow
// part) leaves the old set as it was; the renames take microseconds. A set not committed removes
// its temporary files. Pair it with an OutputFolderLock so that two writers do not interleave.
class OutputSet {
public:
    OutputSet();
    ~OutputSet();
    OutputSet(const OutputSet&) = delete;
    OutputSet& operator=(const OutputSet&) = delete;

    // Checks the target as write_file_atomically does and writes `content` to its temporary file
    // now; throws InputError as write_file_atomically does.
    void add(const std::filesystem::path& path, std::string_view content);
    // Renames every file into place, in the order added. Throws InputError when a target was
    // replaced by something else meanwhile or a rename fails (the files renamed before stay).
    void commit();

private:
    struct Pending;
    std::vector<std::unique_ptr<Pending>> pending_;
};

// An exclusive advisory lock (flock) on a folder, held while a program renames its output set
// into place there: a second shakedown-analyze on the same run commits only after the first has
// committed all of its files, so the folder holds one analysis's set. Throws InputError "another analysis is writing in FOLDER; waited N s" when the lock is
// not free within `wait_s`, or "cannot lock FOLDER: <why>".
class OutputFolderLock {
public:
    OutputFolderLock(const std::filesystem::path& folder, double wait_s);
    ~OutputFolderLock();
    OutputFolderLock(const OutputFolderLock&) = delete;
    OutputFolderLock& operator=(const OutputFolderLock&) = delete;

private:
    int fd_ = -1;
};

}  // namespace shakedown
