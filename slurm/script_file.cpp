#include "slurm/script_file.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

namespace shakedown::slurm {

bool create_script(const std::filesystem::path& path, const std::string& text) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0776);  // rwxrwxrw- less the umask
    if (fd < 0) {
        if (errno == EEXIST) return false;
        throw InputError(fmt::format("cannot write the job script '{}': {}", path.string(), std::strerror(errno)));
    }
    std::string_view rest = text;
    int failure = 0;
    while (!rest.empty() && failure == 0) {
        const ssize_t wrote = ::write(fd, rest.data(), rest.size());
        if (wrote < 0 && errno != EINTR) failure = errno;
        if (wrote > 0) rest.remove_prefix(static_cast<std::size_t>(wrote));
    }
    if (::close(fd) != 0 && failure == 0) failure = errno;
    if (failure != 0) {
        ::unlink(path.c_str());
        throw InputError(fmt::format("cannot write the job script '{}': {}", path.string(), std::strerror(failure)));
    }
    return true;
}

}  // namespace shakedown::slurm
