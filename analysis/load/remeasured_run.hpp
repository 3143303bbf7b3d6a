// A run with a confirmation run's measurements in place (`shakedown-analyze RUN --confirmation
// AGAIN`). Every rank of AGAIN is matched with RUN's rank on the same node and local rank; each
// test it ran (not waived) replaces RUN's result there, so the rules judge the figures measured
// again against the rest of RUN's fleet, with RUN's references. Links are not merged into RUN's
// matrix: a confirmation on a few nodes runs under another load than the whole job (on the
// virtual cluster its healthy links were twice as fast), so its links are compared only with
// RUN's references for the same links (rules/model/confirmation.hpp); here they are folded into one
// median per node pair.
#pragma once

#include "analysis/load/run_data.hpp"
#include "core/result.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace shakedown::analysis {

// What a confirmation run measured again: per node, the tests it ran there (not waived), and the
// inter-node links of its allpairs matrix.
struct Remeasured {
    std::string run_id;  // AGAIN's
    std::map<std::string, std::set<std::string>> tests_by_node;
    struct MatrixLinks {
        // The median bandwidth of every inter-node pair AGAIN measured, keyed (a, b) with a < b.
        std::map<std::pair<std::string, std::string>, double> link_gbs;
        // The same per direction, keyed (from, to): a link judged by one direction is confirmed by it.
        std::map<std::pair<std::string, std::string>, double> directed_link_gbs;
    };
    std::map<std::string, MatrixLinks> matrices;  // by link matrix name (rules/links/link_matrices.hpp)

    bool covers(const std::string& node, const std::string& test) const;
    std::optional<double> link(const std::string& matrix, const std::string& a, const std::string& b) const;
    std::optional<double> directed_link(const std::string& matrix, const std::string& from, const std::string& to) const;
};

struct RemeasuredRun {
    LoadedRun run;  // RUN, with AGAIN's results in place
    Remeasured remeasured;
    // AGAIN's random-ring tables (rank 0's samples of the congestion tests it ran), their ranks
    // turned into RUN's: the ring figures beside the node figures AGAIN measured, which RUN's
    // rank 0 trace no longer matches (RunDetails serves them in its place).
    std::map<std::string, SampleTable> ring_tables;
};

// `again_matrices`: AGAIN's link matrices by name (rank 0's samples of each declared source, split
// by network); `again_ring_tables`: rank 0's samples of AGAIN's congestion tests, by test key. Throws InputError when AGAIN is not a
// confirmation of RUN: a rank on a node or local rank RUN does not have, or a test RUN did not list.
RemeasuredRun remeasure(const LoadedRun& first, const LoadedRun& again,
                        const std::map<std::string, SampleTable>& again_matrices,
                        const std::map<std::string, SampleTable>& again_ring_tables = {});

}  // namespace shakedown::analysis
