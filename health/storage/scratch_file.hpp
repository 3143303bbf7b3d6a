// A file the storage test creates and alone removes. Created with O_CREAT|O_EXCL under a
// name nobody else uses, so it can never be somebody else's file; removed by the destructor
// (also when the test throws half-way), and only if the path still names the very inode we
// created, so a file that replaced ours in the meantime is left alone.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>

namespace shakedown::health {

class ScratchFile {
public:
    // Opens a new file in `folder` named "<stem>.<random>.tmp", O_DIRECT when `direct`.
    // Throws std::system_error (with the path) when it cannot be created; a refused
    // O_DIRECT is reported as EINVAL so the caller can fall back.
    ScratchFile(const std::filesystem::path& folder, const std::string& stem, bool direct);
    ScratchFile(const ScratchFile&) = delete;
    ScratchFile& operator=(const ScratchFile&) = delete;
    ~ScratchFile();  // close, then unlink if the path is still ours

    int fd() const { return fd_; }
    const std::filesystem::path& path() const { return path_; }
    bool direct() const { return direct_; }

private:
    std::filesystem::path path_;
    int fd_ = -1;
    bool direct_ = false;
    dev_t device_ = 0;
    ino_t inode_ = 0;
};

// True when the file system under `folder` accepts O_DIRECT (tmpfs and some FUSE file
// systems do not). Probes with a ScratchFile, which removes itself.
bool supports_o_direct(const std::filesystem::path& folder);

}  // namespace shakedown::health
