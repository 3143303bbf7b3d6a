// A run with a confirmation run's measurements in place (`shakedown-analyze RUN --confirmation
// AGAIN`). Every rank of AGAIN is matched with RUN's rank on the same node and local rank; each
// test it ran (not waived) replaces RUN's result there, and rank 0's allpairs link matrix takes
// AGAIN's rows for every node pair AGAIN measured, in RUN's rank numbers. The rules then judge
// the figures measured again against the rest of RUN's fleet, with RUN's references.
#pragma once

#include "analysis/load/run_data.hpp"
#include "core/result.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace shakedown::analysis {

// What a confirmation run measured again: per node, the tests it ran there (not waived).
struct Remeasured {
    std::string run_id;  // AGAIN's
    std::map<std::string, std::set<std::string>> tests_by_node;

    bool covers(const std::string& node, const std::string& test) const;
};

struct RemeasuredRun {
    LoadedRun run;  // RUN, with AGAIN's results in place
    Remeasured remeasured;
    std::optional<SampleTable> link_matrix;  // the merged allpairs matrix, when RUN had one
};

// `first_matrix` / `again_matrix`: rank 0's allpairs samples of each run (nullopt: none). Throws
// InputError when AGAIN is not a confirmation of RUN: a rank on a node or local rank RUN does not
// have, or a test RUN did not list.
RemeasuredRun remeasure(const LoadedRun& first, const LoadedRun& again, const std::optional<SampleTable>& first_matrix,
                        const std::optional<SampleTable>& again_matrix);

}  // namespace shakedown::analysis
