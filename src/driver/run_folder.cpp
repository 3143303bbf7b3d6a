#include "driver/run_folder.hpp"

#include "core/communicator.hpp"
#include "core/errors.hpp"
#include "trace/run_manifest.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <vector>

namespace shakedown {
namespace {

// mkdir (not create_directories) so that an existing folder is an error, never reused.
bool make_new_folder(const std::filesystem::path& path, std::string& error) {
    if (::mkdir(path.c_str(), 0755) == 0) return true;
    error = std::strerror(errno);
    return false;
}

std::string try_create(const Config& config, RunFolder& folder) {
    std::error_code ec;
    std::filesystem::create_directories(config.out_parent, ec);
    if (ec) return fmt::format("cannot create output folder '{}': {}", config.out_parent.string(), ec.message());
    if (!std::filesystem::is_directory(config.out_parent))
        return fmt::format("output folder '{}' is not a folder", config.out_parent.string());

    std::string error;
    if (config.run_name) {
        folder.run_id = *config.run_name;
        folder.path = config.out_parent / folder.run_id;
        if (std::filesystem::exists(folder.path))
            return fmt::format("run folder '{}' exists already; shakedown never overwrites a run", folder.path.string());
        if (!make_new_folder(folder.path, error))
            return fmt::format("cannot create run folder '{}': {}", folder.path.string(), error);
        return {};
    }
    const std::string base = default_run_name(config);
    for (int attempt = 1; attempt <= 100; ++attempt) {
        folder.run_id = attempt == 1 ? base : fmt::format("{}-{}", base, attempt);
        folder.path = config.out_parent / folder.run_id;
        if (make_new_folder(folder.path, error)) return {};
        if (errno != EEXIST) return fmt::format("cannot create run folder in '{}': {}", config.out_parent.string(), error);
    }
    return fmt::format("cannot find a free run folder name in '{}'", config.out_parent.string());
}

// RUN/traces and one folder per block of ranks, made once by rank 0 before any rank writes.
std::string make_trace_folders(const RunFolder& folder, int world_size) {
    std::string error;
    if (!make_new_folder(folder.path / trace_folder_name, error))
        return fmt::format("cannot create '{}': {}", (folder.path / trace_folder_name).string(), error);
    for (int first = 0; first < world_size; first += ranks_per_trace_folder) {
        const auto block = folder.path / trace_block_folder(first);
        if (!make_new_folder(block, error)) return fmt::format("cannot create '{}': {}", block.string(), error);
    }
    return {};
}

}  // namespace

std::string default_run_name(const Config& config) {
    std::string name = fmt::format("{:%Y%m%d-%H%M%S}", fmt::gmtime(std::time(nullptr)));
    if (!config.tag.empty()) name += "-" + config.tag;
    if (const char* job = std::getenv("SLURM_JOB_ID"); job != nullptr && *job != '\0') name += fmt::format("-job{}", job);
    return name;
}

std::string random_run_uuid() {
    std::random_device source;  // the kernel's random source (getrandom) on Linux
    std::array<unsigned char, 16> bytes{};
    for (std::size_t i = 0; i < bytes.size(); i += 4) {
        const unsigned int word = source();
        for (std::size_t k = 0; k < 4; ++k) bytes[i + k] = static_cast<unsigned char>(word >> (8 * k));
    }
    bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0F) | 0x40);  // version 4
    bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3F) | 0x80);  // RFC 4122 variant
    std::string text;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
        text += fmt::format("{:02x}", bytes[i]);
    }
    return text;
}

RunFolder create_run_folder(const Config& config, MPI_Comm world) {
    int rank = 0;
    MPI_Comm_rank(world, &rank);
    RunFolder folder;
    std::string error;
    if (rank == 0) {
        error = try_create(config, folder);
        if (error.empty()) {
            int world_size = 1;
            MPI_Comm_size(world, &world_size);
            error = make_trace_folders(folder, world_size);
            if (!error.empty()) {
                remove_empty_trace_folders(folder, world_size);
                std::error_code ignored;
                std::filesystem::remove(folder.path, ignored);  // only when nothing else is in it
            }
        }
        folder.run_uuid = random_run_uuid();
    }
    broadcast_text(error, 0, world);
    if (!error.empty()) throw InputError(error);
    std::string path = folder.path.string();
    broadcast_text(path, 0, world);
    broadcast_text(folder.run_id, 0, world);
    broadcast_text(folder.run_uuid, 0, world);
    folder.path = path;
    return folder;
}

void remove_empty_trace_folders(const RunFolder& folder, int world_size) {
    std::error_code ignored;  // std::filesystem::remove leaves a folder that is not empty
    for (int first = 0; first < world_size; first += ranks_per_trace_folder)
        std::filesystem::remove(folder.path / trace_block_folder(first), ignored);
    std::filesystem::remove(folder.path / trace_folder_name, ignored);
}

std::filesystem::path trace_path(const RunFolder& folder, int world_rank) {
    return folder.path / trace_relative_path(world_rank);
}

}  // namespace shakedown
