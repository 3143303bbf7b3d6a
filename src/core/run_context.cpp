#include "core/run_context.hpp"

namespace shakedown {

FaultSwitches::FaultSwitches(const std::vector<FaultSpec>& all, std::string_view test_key, int world_rank) {
    for (const auto& fault : all) {
        if (fault.test != test_key || fault.rank != world_rank) continue;
        switch (fault.kind) {
        case FaultKind::corrupt: corrupt_ = true; break;
        case FaultKind::abort: abort_ = true; break;
        case FaultKind::hang: hang_ = true; break;
        case FaultKind::stop:
            stop_ = true;
            stop_s_ = fault.seconds;
            break;
        case FaultKind::delay: delay_s_ += fault.seconds; break;
        }
    }
}

int RunContext::rank() const {
    int rank = 0;
    MPI_Comm_rank(comm_, &rank);
    return rank;
}

int RunContext::size() const {
    int size = 0;
    MPI_Comm_size(comm_, &size);
    return size;
}

}  // namespace shakedown
