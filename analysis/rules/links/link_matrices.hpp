// The link matrices of a run: every declared source (a test whose rank-0 samples are a link
// matrix: allpairs, tcp_bandwidth) that rank 0 ran, split by network where the source measures
// several. Each is localized on its own (link_localization.hpp) and confirmed by its own again.
#pragma once

#include "analysis/load/run_details.hpp"
#include "comm/link_matrix_columns.hpp"
#include "core/result.hpp"

#include <string>
#include <vector>

namespace shakedown::analysis {

using link_matrix_columns::LinkMatrixSource;

// Every declared source, in the order they are judged.
const std::vector<LinkMatrixSource>& link_matrix_sources();

struct LinkMatrix {
    LinkMatrixSource source;
    std::string network;  // "" for a source of one network
    std::string name;     // "allpairs", "tcp_bandwidth on eth0": what a link finding and its confirmation key by
    SampleTable table;
};

// `table`: the source's rank-0 samples; `rank0`: that rank's result, whose parameter names the
// networks (nullptr: none named; each network index is then named by its number).
std::vector<LinkMatrix> split_link_matrix(const LinkMatrixSource& source, const SampleTable& table, const TestResult* rank0);

// Every matrix of a run: each declared source's rank-0 samples, split by its rank-0 parameters.
std::vector<LinkMatrix> link_matrices_of(const RunDetails& details);

}  // namespace shakedown::analysis
