#include "health/storage/scratch_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <system_error>

namespace shakedown::health {
namespace {

std::string unique_suffix() {
    std::random_device entropy;
    return fmt::format("{:08x}{:08x}.{}", entropy(), entropy(), getpid());
}

}  // namespace

ScratchFile::ScratchFile(const std::filesystem::path& folder, const std::string& stem, bool direct) : direct_(direct) {
    int flags = O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC;
    if (direct) flags |= O_DIRECT;
    // A clash with an existing name (vanishingly unlikely) is retried under a new name; the
    // existing file is never opened.
    for (int attempt = 0; attempt < 8 && fd_ < 0; ++attempt) {
        path_ = folder / fmt::format("{}.{}.tmp", stem, unique_suffix());
        fd_ = ::open(path_.c_str(), flags, 0600);
        if (fd_ < 0 && errno != EEXIST) break;
    }
    if (fd_ < 0) throw std::system_error(errno, std::generic_category(), fmt::format("creating {}", path_.string()));
    struct stat info {};
    if (::fstat(fd_, &info) != 0) {
        const int error = errno;
        ::close(fd_);
        ::unlink(path_.c_str());  // just created with O_EXCL: ours for certain
        throw std::system_error(error, std::generic_category(), fmt::format("fstat {}", path_.string()));
    }
    device_ = info.st_dev;
    inode_ = info.st_ino;
}

ScratchFile::~ScratchFile() {
    if (fd_ >= 0) ::close(fd_);
    struct stat info {};
    if (::lstat(path_.c_str(), &info) == 0 && info.st_dev == device_ && info.st_ino == inode_) ::unlink(path_.c_str());
}

bool supports_o_direct(const std::filesystem::path& folder) {
    try {
        const ScratchFile probe(folder, ".shakedown-odirect-probe", true);
        // Some file systems accept the flag at open and refuse the first aligned write.
        constexpr std::size_t block = 4096;
        void* raw = nullptr;
        if (::posix_memalign(&raw, block, block) != 0) return false;
        const std::unique_ptr<void, decltype(&std::free)> buffer(raw, &std::free);
        std::memset(raw, 0, block);
        return ::pwrite(probe.fd(), raw, block, 0) == static_cast<ssize_t>(block);
    } catch (const std::system_error& error) {
        if (error.code().value() == EINVAL) return false;
        throw;
    }
}

}  // namespace shakedown::health
