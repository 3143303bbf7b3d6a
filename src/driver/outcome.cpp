#include "driver/outcome.hpp"

#include "core/communicator.hpp"

#include <climits>

namespace shakedown {
namespace {

// Order of badness when ranks disagree.
int badness(Status status) {
    switch (status) {
    case Status::pass: return 0;
    case Status::waived: return 1;
    case Status::fail: return 2;
    case Status::error: return 3;
    }
    return 3;
}

constexpr Status by_badness[] = {Status::pass, Status::waived, Status::fail, Status::error};

}  // namespace

TestOutcome gather_outcome(const TestResult& mine, MPI_Comm world) {
    int rank = 0;
    MPI_Comm_rank(world, &rank);
    TestOutcome outcome;
    MPI_Comm_size(world, &outcome.ranks);

    const int my_badness = badness(mine.status);
    int worst = 0;
    MPI_Allreduce(&my_badness, &worst, 1, MPI_INT, MPI_MAX, world);
    outcome.worst = by_badness[worst];

    const int has_worst = my_badness == worst ? 1 : 0;
    MPI_Allreduce(&has_worst, &outcome.ranks_with_worst, 1, MPI_INT, MPI_SUM, world);
    const int candidate = has_worst ? rank : INT_MAX;
    MPI_Allreduce(&candidate, &outcome.first_rank_with_worst, 1, MPI_INT, MPI_MIN, world);

    outcome.reason = rank == outcome.first_rank_with_worst ? mine.reason : std::string();
    broadcast_text(outcome.reason, outcome.first_rank_with_worst, world);

    // A value the node could not honour or a binary without code for its GPU: the operator's to fix.
    const int my_bad_input = mine.bad_input || cause_of(mine) == Cause::configuration ? 1 : 0;
    int any_bad_input = 0;
    MPI_Allreduce(&my_bad_input, &any_bad_input, 1, MPI_INT, MPI_MAX, world);
    outcome.bad_input = any_bad_input != 0;

    const double seconds = mine.end_utc - mine.start_utc;
    MPI_Allreduce(&seconds, &outcome.seconds, 1, MPI_DOUBLE, MPI_MAX, world);
    return outcome;
}

}  // namespace shakedown
