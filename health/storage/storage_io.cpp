#include "health/storage/storage_io.hpp"

#include "health/storage/file_io.hpp"
#include "health/storage/scratch_file.hpp"
#include "health/storage/storage_target.hpp"

#include "core/clock.hpp"
#include "core/counter_hash.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <system_error>

namespace shakedown::health {
namespace {

void write_all(const ScratchFile& file, const AlignedBuffer& buffer, std::uint64_t offset) {
    write_fully(file.fd(), file.path(), buffer.data(), buffer.bytes(), offset);
}

void read_all(const ScratchFile& file, const AlignedBuffer& buffer, std::size_t bytes, std::uint64_t offset) {
    read_fully(file.fd(), file.path(), buffer.data(), bytes, offset);
}

// Buffered files only: written pages leave the cache once they are clean on the device.
void drop_cache(const ScratchFile& file) {
    if (file.direct()) return;
    flush_and_drop_cache(file.fd(), file.path());
}

}  // namespace

StorageFigures measure_storage(const std::filesystem::path& folder, const StorageOptions& options) {
    if (options.block_bytes == 0 || options.block_bytes % direct_alignment != 0 ||
        options.file_bytes % options.block_bytes != 0 || options.file_bytes < random_read_bytes)
        throw std::invalid_argument("storage: file size must be a positive multiple of the block size (4 KiB multiple)");

    const bool direct = options.try_direct && supports_o_direct(folder);
    const ScratchFile file(folder, options.file_stem, direct);
    StorageFigures figures;
    figures.bytes = options.file_bytes;
    figures.cache_mode = cache_mode_of(folder, direct);
    const std::uint64_t blocks = options.file_bytes / options.block_bytes;
    const std::uint64_t words_per_block = options.block_bytes / sizeof(std::uint64_t);
    const AlignedBuffer buffer(options.block_bytes);

    // Sequential write, fsync included: data is on the device when the clock stops. The
    // pattern is generated outside the timed calls.
    double write_seconds = 0.0;
    for (std::uint64_t block = 0; block < blocks; ++block) {
        fill_pattern(buffer.words(), options.seed, block * words_per_block);
        if (options.plant_corruption && block == blocks / 2) buffer.words()[words_per_block / 2] ^= 0x5A5A5A5A5A5A5A5Aull;
        const Stopwatch watch;
        write_all(file, buffer, block * options.block_bytes);
        write_seconds += watch.seconds();
    }
    const Stopwatch sync_watch;
    if (::fsync(file.fd()) != 0) throw_io("fsync", file.path(), 0);
    figures.write_seconds = write_seconds + sync_watch.seconds();
    drop_cache(file);

    // Sequential read, every word checked (outside the timed calls).
    for (std::uint64_t block = 0; block < blocks; ++block) {
        const Stopwatch watch;
        read_all(file, buffer, options.block_bytes, block * options.block_bytes);
        figures.read_seconds += watch.seconds();
        if (figures.validation_error.empty())
            if (auto bad = pattern_mismatch(buffer.words(), options.seed, block * words_per_block, file.path()))
                figures.validation_error = *bad;
    }
    drop_cache(file);

    // Random 4 KiB reads at aligned offsets, queue depth 1, for the set time.
    const std::uint64_t slots = options.file_bytes / random_read_bytes;
    const std::uint64_t words_per_read = random_read_bytes / sizeof(std::uint64_t);
    const Stopwatch phase;
    while (phase.seconds() < options.random_seconds && figures.random_reads < options.random_read_cap) {
        const std::uint64_t slot = mix64(options.seed ^ (figures.random_reads + 1)) % slots;
        const Stopwatch watch;
        read_all(file, buffer, random_read_bytes, slot * random_read_bytes);
        figures.random_seconds += watch.seconds();
        ++figures.random_reads;
        if (figures.validation_error.empty())
            if (auto bad = pattern_mismatch(buffer.words().first(words_per_read), options.seed, slot * words_per_read, file.path()))
                figures.validation_error = *bad;
    }
    return figures;
}

}  // namespace shakedown::health
