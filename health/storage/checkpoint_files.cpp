#include "health/storage/checkpoint_files.hpp"

#include "core/clock.hpp"
#include "core/counter_hash.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace shakedown::health {
namespace {

// An open file descriptor, closed on every way out.
class OpenFile {
public:
    OpenFile(const std::filesystem::path& path, int flags) : fd_(::open(path.c_str(), flags, 0600)) {
        if (fd_ < 0) throw std::system_error(errno, std::generic_category(), fmt::format("opening {}", path.string()));
    }
    OpenFile(const OpenFile&) = delete;
    OpenFile& operator=(const OpenFile&) = delete;
    ~OpenFile() {
        if (fd_ >= 0) ::close(fd_);
    }
    int fd() const { return fd_; }
    // The close's own error (NFS reports a failed write here), thrown naming the file.
    void close(const std::filesystem::path& path) {
        const int fd = std::exchange(fd_, -1);
        if (::close(fd) != 0) throw std::system_error(errno, std::generic_category(), fmt::format("closing {}", path.string()));
    }

private:
    int fd_;
};

}  // namespace

// A value no pattern word is likely to hold, so a buffer a read did not fill reads as a mismatch.
constexpr unsigned char poison = 0xA5;

CheckpointShard::CheckpointShard(const std::filesystem::path& folder, ShardOptions options)
    : options_(std::move(options)), file_(folder, options_.stem, options_.direct), buffer_(options_.shard_bytes) {
    if (options_.block_bytes == 0 || options_.block_bytes % direct_alignment != 0 || options_.shard_bytes == 0 ||
        options_.shard_bytes % options_.block_bytes != 0)
        throw std::invalid_argument("checkpoint_io: the shard must be a whole number of 4 KiB-multiple blocks");
    fill_pattern(buffer_.words(), options_.seed, 0);
}

double CheckpointShard::save() {
    std::span<std::uint64_t> words = buffer_.words();
    const std::uint64_t flipped = words.size() / 2;  // the planted wrong word goes to the disk, not to the reference
    if (options_.plant_corruption) words[flipped] ^= 0x5A5A5A5A5A5A5A5Aull;
    const char* data = static_cast<const char*>(buffer_.data());
    const Stopwatch watch;
    for (std::uint64_t offset = 0; offset < options_.shard_bytes; offset += options_.block_bytes)
        write_fully(file_.fd(), file_.path(), data + offset, options_.block_bytes, offset);
    if (::fsync(file_.fd()) != 0) throw_io("fsync", file_.path(), 0);
    const double seconds = watch.seconds();
    if (options_.plant_corruption) words[flipped] ^= 0x5A5A5A5A5A5A5A5Aull;
    if (!file_.direct()) ::posix_fadvise(file_.fd(), 0, 0, POSIX_FADV_DONTNEED);  // clean now: the restore reads the device
    return seconds;
}

CheckedRead CheckpointShard::restore() {
    std::memset(buffer_.data(), poison, buffer_.bytes());
    char* data = static_cast<char*>(buffer_.data());
    CheckedRead read;
    const Stopwatch watch;
    for (std::uint64_t offset = 0; offset < options_.shard_bytes; offset += options_.block_bytes)
        read_fully(file_.fd(), file_.path(), data + offset, options_.block_bytes, offset);
    read.seconds = watch.seconds();
    if (auto bad = pattern_mismatch(buffer_.words(), options_.seed, 0, file_.path())) read.mismatch = *bad;
    return read;
}

SampleFiles::SampleFiles(const std::filesystem::path& folder, const std::string& stem, int count, std::uint64_t bytes,
                         std::uint64_t seed, bool direct)
    : count_(count), bytes_(bytes), seed_(seed), direct_(direct), buffer_(bytes * static_cast<std::uint64_t>(count)) {
    if (bytes == 0 || bytes % direct_alignment != 0 || count < 1)
        throw std::invalid_argument("checkpoint_io: sample files must be a positive multiple of 4 KiB, at least one");
    for (int index = 0; index < count_; ++index) fill_pattern(file_words(index), file_seed(index), 0);
    std::string name = (folder / (stem + ".XXXXXX")).string();
    if (::mkdtemp(name.data()) == nullptr)
        throw std::system_error(errno, std::generic_category(), fmt::format("creating a folder in {}", folder.string()));
    folder_ = name;
    folder_made_ = true;
    made_.reserve(static_cast<std::size_t>(count));
}

SampleFiles::~SampleFiles() {
    for (const MadeFile& file : made_) {
        struct stat info {};
        if (::lstat(file.path.c_str(), &info) == 0 && info.st_dev == file.device && info.st_ino == file.inode)
            ::unlink(file.path.c_str());
    }
    if (folder_made_) ::rmdir(folder_.c_str());  // only when empty: a file somebody else put there stays
}

std::filesystem::path SampleFiles::file_path(int index) const { return folder_ / fmt::format("sample-{:07d}", index); }

std::uint64_t SampleFiles::file_seed(int index) const { return mix64(seed_ ^ (static_cast<std::uint64_t>(index) + 1)); }

std::span<std::uint64_t> SampleFiles::file_words(int index) const {
    const std::size_t words = bytes_ / sizeof(std::uint64_t);
    return buffer_.words().subspan(static_cast<std::size_t>(index) * words, words);
}

std::vector<double> SampleFiles::write_all() {
    std::vector<double> seconds;
    seconds.reserve(static_cast<std::size_t>(count_));
    const int flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | (direct_ ? O_DIRECT : 0);
    for (int index = 0; index < count_; ++index) {
        const std::filesystem::path path = file_path(index);
        const Stopwatch watch;
        OpenFile file(path, flags);
        struct stat info {};
        if (::fstat(file.fd(), &info) == 0) made_.push_back({path, info.st_dev, info.st_ino});
        write_fully(file.fd(), path, file_words(index).data(), bytes_, 0);
        if (::fsync(file.fd()) != 0) throw_io("fsync", path, 0);
        const double written = watch.seconds();
        if (!direct_) ::posix_fadvise(file.fd(), 0, 0, POSIX_FADV_DONTNEED);
        file.close(path);
        seconds.push_back(written);
    }
    return seconds;
}

SampleFiles::Reads SampleFiles::read_shuffled() {
    std::vector<int> order(static_cast<std::size_t>(count_));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(seed_));
    Reads reads;
    reads.seconds.reserve(order.size());
    std::memset(buffer_.data(), poison, buffer_.bytes());
    const int flags = O_RDONLY | O_CLOEXEC | (direct_ ? O_DIRECT : 0);
    const Stopwatch phase;
    for (int index : order) {
        const std::filesystem::path path = file_path(index);
        const Stopwatch watch;
        OpenFile file(path, flags);
        read_fully(file.fd(), path, file_words(index).data(), bytes_, 0);
        reads.seconds.push_back(watch.seconds());  // the close after: a read-only close does no I/O
    }
    reads.wall_seconds = phase.seconds();
    for (int index = 0; index < count_ && reads.mismatch.empty(); ++index)
        if (auto bad = pattern_mismatch(file_words(index), file_seed(index), 0, file_path(index))) reads.mismatch = *bad;
    return reads;
}

}  // namespace shakedown::health
