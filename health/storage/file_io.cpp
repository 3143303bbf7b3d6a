#include "health/storage/file_io.hpp"

#include "core/counter_hash.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <new>
#include <system_error>

namespace shakedown::health {

AlignedBuffer::AlignedBuffer(std::size_t bytes) : bytes_(bytes) {
    void* raw = nullptr;
    if (::posix_memalign(&raw, direct_alignment, bytes) != 0) throw std::bad_alloc();
    data_.reset(static_cast<std::uint64_t*>(raw));
}

void AlignedBuffer::Free::operator()(std::uint64_t* p) const { std::free(p); }

std::uint64_t pattern_word(std::uint64_t seed, std::uint64_t word_index) {
    return mix64(seed * 0x9E3779B97F4A7C15ull + word_index);
}

void fill_pattern(std::span<std::uint64_t> words, std::uint64_t seed, std::uint64_t first_word) {
    for (std::size_t i = 0; i < words.size(); ++i) words[i] = pattern_word(seed, first_word + i);
}

std::optional<std::string> pattern_mismatch(std::span<const std::uint64_t> words, std::uint64_t seed,
                                            std::uint64_t first_word, const std::filesystem::path& path) {
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::uint64_t expected = pattern_word(seed, first_word + i);
        if (words[i] != expected)
            return fmt::format("{}: byte offset {} reads 0x{:016x}, wrote 0x{:016x}", path.filename().string(),
                               (first_word + i) * sizeof(std::uint64_t), words[i], expected);
    }
    return std::nullopt;
}

void throw_io(const char* what, const std::filesystem::path& path, std::uint64_t offset) {
    throw std::system_error(errno != 0 ? errno : EIO, std::generic_category(),
                            fmt::format("{} {} at offset {}", what, path.string(), offset));
}

void write_fully(int fd, const std::filesystem::path& path, const void* data, std::size_t bytes, std::uint64_t offset) {
    std::size_t done = 0;
    while (done < bytes) {
        errno = 0;
        const ssize_t n = ::pwrite(fd, static_cast<const char*>(data) + done, bytes - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw_io("writing", path, offset + done);
        done += static_cast<std::size_t>(n);
    }
}

void read_fully(int fd, const std::filesystem::path& path, void* data, std::size_t bytes, std::uint64_t offset) {
    std::size_t done = 0;
    while (done < bytes) {
        errno = 0;
        const ssize_t n = ::pread(fd, static_cast<char*>(data) + done, bytes - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw_io("reading", path, offset + done);
        done += static_cast<std::size_t>(n);
    }
}

void flush_and_drop_cache(int fd, const std::filesystem::path& path) {
    if (::fsync(fd) != 0) throw_io("fsync", path, 0);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
}

}  // namespace shakedown::health
