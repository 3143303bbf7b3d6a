// A folder every rank sees, for the MPI tests of the storage tests: rank 0 makes it (a TempFolder,
// or any owner with path(): a small tmpfs) and tells the others its path; it goes after every rank
// is done with it.
#pragma once

#include "support/mpi_world.hpp"
#include "temp_folder.hpp"

#include <mpi.h>

#include <filesystem>
#include <iterator>
#include <memory>
#include <string>

namespace shakedown::testing {

template <typename Owner = TempFolder>
class SharedFolderOf {
public:
    template <typename... Arguments>
    explicit SharedFolderOf(Arguments&&... arguments) {
        std::string path;
        if (world_rank() == 0) {
            owner_ = std::make_unique<Owner>(std::forward<Arguments>(arguments)...);
            path = owner_->path().string();
        }
        int length = static_cast<int>(path.size());
        MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
        path.resize(static_cast<std::size_t>(length));
        MPI_Bcast(path.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
        path_ = path;
    }
    ~SharedFolderOf() { MPI_Barrier(MPI_COMM_WORLD); }
    SharedFolderOf(const SharedFolderOf&) = delete;
    SharedFolderOf& operator=(const SharedFolderOf&) = delete;

    const std::filesystem::path& path() const { return path_; }
    const Owner* owner() const { return owner_.get(); }  // rank 0 only
    std::size_t entry_count() const {
        return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(path_), {}));
    }

private:
    std::unique_ptr<Owner> owner_;
    std::filesystem::path path_;
};

using SharedFolder = SharedFolderOf<TempFolder>;

}  // namespace shakedown::testing
