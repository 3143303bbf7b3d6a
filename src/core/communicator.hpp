// RAII owner of an MPI communicator: freed when it goes out of scope (never MPI_COMM_WORLD).
#pragma once

#include <mpi.h>

#include <string>
#include <utility>

namespace shakedown {

class Communicator {
public:
    Communicator() = default;
    explicit Communicator(MPI_Comm owned) : comm_(owned) {}
    ~Communicator() { reset(); }
    Communicator(const Communicator&) = delete;
    Communicator& operator=(const Communicator&) = delete;
    Communicator(Communicator&& other) noexcept : comm_(std::exchange(other.comm_, MPI_COMM_NULL)) {}
    Communicator& operator=(Communicator&& other) noexcept {
        if (this != &other) {
            reset();
            comm_ = std::exchange(other.comm_, MPI_COMM_NULL);
        }
        return *this;
    }

    MPI_Comm get() const { return comm_; }
    bool valid() const { return comm_ != MPI_COMM_NULL; }
    int rank() const;
    int size() const;

    static Communicator duplicate(MPI_Comm source);
    static Communicator split(MPI_Comm source, int color, int key);  // color MPI_UNDEFINED -> invalid
    static Communicator split_shared(MPI_Comm source);              // ranks on the same node

private:
    void reset() {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
        comm_ = MPI_COMM_NULL;
    }
    MPI_Comm comm_ = MPI_COMM_NULL;
};

// Collective: `text` on `root` replaces `text` on every other rank of `comm`.
void broadcast_text(std::string& text, int root, MPI_Comm comm);

}  // namespace shakedown
