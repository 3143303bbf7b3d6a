// A file system with no byte free, for the tests of what a full disk does: a small tmpfs mounted
// on a fresh folder and filled to the last byte. Mounting needs root (CAP_SYS_ADMIN); where it is
// refused, available() is false and the test skips (GTEST_SKIP) rather than pretend. Unmounted
// (lazily, so nothing is left mounted) and its folder removed when the object goes.
#pragma once

#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace shakedown::testing {

class FullFileSystem {
public:
    FullFileSystem() {
        std::string pattern = (std::filesystem::temp_directory_path() / "shakedown-full-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) {
            why_ = std::strerror(errno);
            return;
        }
        path_ = pattern;
        if (::geteuid() != 0) {
            why_ = "mounting a tmpfs needs root";
            return;
        }
        if (::mount("tmpfs", path_.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "size=256k,mode=0755") != 0) {
            why_ = std::string("cannot mount a tmpfs: ") + std::strerror(errno);
            return;
        }
        mounted_ = true;
        fill();
    }
    ~FullFileSystem() {
        if (mounted_) ::umount2(path_.c_str(), MNT_DETACH);
        std::error_code ignored;
        if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
    }
    FullFileSystem(const FullFileSystem&) = delete;
    FullFileSystem& operator=(const FullFileSystem&) = delete;

    bool available() const { return mounted_; }
    const std::string& why_not() const { return why_; }
    const std::filesystem::path& path() const { return path_; }

    // Frees the filler, so files can be put in place, then fills what is left again.
    template <typename Setup>
    void with_space(Setup setup) {
        ::unlink((path_ / filler).c_str());
        setup();
        fill();
    }

    static constexpr const char* filler = "filler";

private:
    void fill() const {
        const int fd = ::open((path_ / filler).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0) return;
        const std::vector<char> block(4096, 'f');
        while (::write(fd, block.data(), block.size()) > 0) {
        }
        while (::write(fd, block.data(), 1) > 0) {  // the last bytes of a page
        }
        ::close(fd);
    }

    std::filesystem::path path_;
    std::string why_;
    bool mounted_ = false;
};

}  // namespace shakedown::testing
