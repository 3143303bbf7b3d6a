#include "core/input_file.hpp"

#include "core/errors.hpp"
#include "core/file_kind.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace shakedown {
namespace {

// Closes the descriptor on every way out.
class Descriptor {
public:
    explicit Descriptor(int fd) : fd_(fd) {}
    ~Descriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
    int get() const { return fd_; }

private:
    int fd_;
};

}  // namespace

std::string read_input_file(const std::filesystem::path& path, std::uintmax_t max_bytes, const std::string& context) {
    const auto fail = [&](const std::string& reason) -> void { throw InputError(context + reason); };
    const auto check_status = [&](const struct stat& status) {
        if (!S_ISREG(status.st_mode)) fail(fmt::format("not a regular file ({})", file_kind(status.st_mode)));
        if (static_cast<std::uintmax_t>(status.st_size) > max_bytes)
            fail(fmt::format("too large ({} bytes; at most {})", status.st_size, max_bytes));
    };
    // The type is checked before opening: opening a FIFO waits for a writer, and opening a
    // device can have effects of its own.
    struct stat status {};
    if (::stat(path.c_str(), &status) != 0)
        fail(errno == ENOENT ? std::string("no such file") : fmt::format("cannot read it: {}", std::strerror(errno)));
    check_status(status);
    // Non-blocking, and checked again on the open descriptor: the name may have been replaced
    // in between.
    const Descriptor file(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (file.get() < 0) fail(fmt::format("cannot read it: {}", std::strerror(errno)));
    if (::fstat(file.get(), &status) != 0) fail(fmt::format("cannot read it: {}", std::strerror(errno)));
    check_status(status);

    // Read at most one byte past the limit: a file that grows while it is read is refused too.
    std::string text;
    char buffer[65536];
    while (true) {
        const ssize_t got = ::read(file.get(), buffer, sizeof buffer);
        if (got < 0) {
            if (errno == EINTR) continue;
            fail(fmt::format("cannot read it: {}", std::strerror(errno)));
        }
        if (got == 0) break;
        text.append(buffer, static_cast<std::size_t>(got));
        if (text.size() > max_bytes) fail(fmt::format("too large (more than {} bytes)", max_bytes));
    }
    return text;
}

}  // namespace shakedown
