#include "core/communicator.hpp"

namespace shakedown {

int Communicator::rank() const {
    int rank = -1;
    if (valid()) MPI_Comm_rank(comm_, &rank);
    return rank;
}

int Communicator::size() const {
    int size = 0;
    if (valid()) MPI_Comm_size(comm_, &size);
    return size;
}

Communicator Communicator::duplicate(MPI_Comm source) {
    MPI_Comm copy = MPI_COMM_NULL;
    MPI_Comm_dup(source, &copy);
    return Communicator(copy);
}

Communicator Communicator::split(MPI_Comm source, int color, int key) {
    MPI_Comm part = MPI_COMM_NULL;
    MPI_Comm_split(source, color, key, &part);
    return Communicator(part);
}

Communicator Communicator::split_shared(MPI_Comm source) {
    int rank = 0;
    MPI_Comm_rank(source, &rank);
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_split_type(source, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    return Communicator(node);
}

void broadcast_text(std::string& text, int root, MPI_Comm comm) {
    int length = static_cast<int>(text.size());
    MPI_Bcast(&length, 1, MPI_INT, root, comm);
    text.resize(static_cast<std::size_t>(length));
    MPI_Bcast(text.data(), length, MPI_CHAR, root, comm);
}

}  // namespace shakedown
