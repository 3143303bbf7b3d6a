// What both storage tests (`storage`, `checkpoint_io`) do to a file: page-aligned buffers (O_DIRECT
// needs them), the pattern every byte is checked against, and whole transfers whose error names the
// file and the offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace shakedown::health {

inline constexpr std::size_t direct_alignment = 4096;  // O_DIRECT: buffer, offset and size aligned

// Page-aligned host memory, freed on scope exit.
class AlignedBuffer {
public:
    explicit AlignedBuffer(std::size_t bytes);
    std::span<std::uint64_t> words() const { return {data_.get(), bytes_ / sizeof(std::uint64_t)}; }
    void* data() const { return data_.get(); }
    std::size_t bytes() const { return bytes_; }

private:
    struct Free {
        void operator()(std::uint64_t* p) const;
    };
    std::size_t bytes_;
    std::unique_ptr<std::uint64_t, Free> data_;
};

// The pattern: 64-bit word i of a file holds pattern_word(seed, i).
std::uint64_t pattern_word(std::uint64_t seed, std::uint64_t word_index);
void fill_pattern(std::span<std::uint64_t> words, std::uint64_t seed, std::uint64_t first_word);
// The first word of `words` (file word index first_word ...) that is not the pattern, described with
// the file's name and byte offset; nothing when every word matches.
std::optional<std::string> pattern_mismatch(std::span<const std::uint64_t> words, std::uint64_t seed,
                                            std::uint64_t first_word, const std::filesystem::path& path);

// Throws std::system_error (errno, "<what> PATH at offset N") when a transfer fails or comes up short.
void write_fully(int fd, const std::filesystem::path& path, const void* data, std::size_t bytes, std::uint64_t offset);
void read_fully(int fd, const std::filesystem::path& path, void* data, std::size_t bytes, std::uint64_t offset);
[[noreturn]] void throw_io(const char* what, const std::filesystem::path& path, std::uint64_t offset);

// A buffered file's written pages flushed and dropped from the page cache, so the next read comes
// from the device (posix_fadvise is advice: its answer is not checked).
void flush_and_drop_cache(int fd, const std::filesystem::path& path);

}  // namespace shakedown::health
