#include "core/output_file.hpp"

#include "core/errors.hpp"
#include "core/file_kind.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace shakedown {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& why) {
    throw InputError(fmt::format("cannot write {}: {}", path.string(), why));
}

// The temporary file: removed on every way out unless it was renamed into place.
class TemporaryFile {
public:
    explicit TemporaryFile(const std::filesystem::path& target) {
        static std::atomic<unsigned> counter{0};
        // Same folder as the target, so the rename stays on one file system and is atomic;
        // exclusive and not through a link, so nothing planted under this name is written.
        for (int attempt = 0; attempt < 100; ++attempt) {
            path_ = target.parent_path() / fmt::format(".{}.tmp-{}-{}", target.filename().string(), ::getpid(),
                                                       counter.fetch_add(1));
            fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0666);
            if (fd_ >= 0 || errno != EEXIST) break;
        }
        if (fd_ < 0) fail(target, std::strerror(errno));
    }
    ~TemporaryFile() {
        if (fd_ >= 0) ::close(fd_);
        if (!renamed_) ::unlink(path_.c_str());
    }
    TemporaryFile(const TemporaryFile&) = delete;
    TemporaryFile& operator=(const TemporaryFile&) = delete;

    // Writes all of `content`, flushed as asked; false with errno set when it cannot.
    bool write_all(std::string_view content, Flush flush) {
        while (!content.empty()) {
            const ssize_t wrote = ::write(fd_, content.data(), content.size());
            if (wrote < 0) {
                if (errno == EINTR) continue;
                return false;
            }
            content.remove_prefix(static_cast<std::size_t>(wrote));
        }
        if (flush == Flush::to_disk && ::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS) return false;
        const int fd = fd_;
        fd_ = -1;
        return ::close(fd) == 0;
    }
    const std::filesystem::path& path() const { return path_; }
    void renamed() { renamed_ = true; }

private:
    std::filesystem::path path_;
    int fd_ = -1;
    bool renamed_ = false;
};

}  // namespace

void check_output_target(const std::filesystem::path& path) {
    struct stat status {};
    if (::lstat(path.c_str(), &status) != 0) {
        if (errno == ENOENT) return;
        fail(path, std::strerror(errno));
    }
    if (S_ISLNK(status.st_mode)) fail(path, "it is a symbolic link; not replaced");
    if (!S_ISREG(status.st_mode)) fail(path, fmt::format("not a regular file ({}); not replaced", file_kind(status.st_mode)));
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content, Flush flush) {
    if (path.empty() || !path.has_filename()) fail(path, "not a file name");
    check_output_target(path);
    TemporaryFile temporary(path);
    if (!temporary.write_all(content, flush)) fail(path, std::strerror(errno));
    // Checked again just before the rename: the name may have been replaced in the meantime.
    check_output_target(path);
    if (::rename(temporary.path().c_str(), path.c_str()) != 0) fail(path, std::strerror(errno));
    temporary.renamed();
}

struct OutputSet::Pending {
    std::filesystem::path target;
    TemporaryFile temporary;
    explicit Pending(const std::filesystem::path& path) : target(path), temporary(path) {}
};

OutputSet::OutputSet() = default;
OutputSet::~OutputSet() = default;  // an uncommitted file's TemporaryFile removes it

void OutputSet::add(const std::filesystem::path& path, std::string_view content) {
    if (path.empty() || !path.has_filename()) fail(path, "not a file name");
    check_output_target(path);
    auto pending = std::make_unique<Pending>(path);
    if (!pending->temporary.write_all(content, Flush::to_disk)) fail(path, std::strerror(errno));
    pending_.push_back(std::move(pending));
}

void OutputSet::commit() {
    for (const auto& pending : pending_) check_output_target(pending->target);  // all before the first rename
    for (const auto& pending : pending_) {
        if (::rename(pending->temporary.path().c_str(), pending->target.c_str()) != 0)
            fail(pending->target, std::strerror(errno));
        pending->temporary.renamed();
    }
    pending_.clear();
}

OutputFolderLock::OutputFolderLock(const std::filesystem::path& folder, double wait_s) {
    const std::filesystem::path where = folder.empty() ? std::filesystem::path(".") : folder;
    fd_ = ::open(where.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0) throw InputError(fmt::format("cannot lock {}: {}", where.string(), std::strerror(errno)));
    // Polled rather than blocking, so a writer that never finishes costs a bounded wait and one line.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
    while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR) {
            const std::string why = std::strerror(errno);
            ::close(fd_);
            throw InputError(fmt::format("cannot lock {}: {}", where.string(), why));
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            ::close(fd_);
            throw InputError(fmt::format("another analysis is writing in {}; waited {:g} s", where.string(), wait_s));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

OutputFolderLock::~OutputFolderLock() {
    if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the lock
}

}  // namespace shakedown
