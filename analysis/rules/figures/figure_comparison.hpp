// One run's figures against another's, the one way every run-against-run comparison does it
// (`--baseline` in rules/figures/baseline, `compare` in history/run_comparison). What a figure is compared
// as comes from its test's declaration and where it was measured:
// - a job-wide figure (MetricScope::job: a collective's bandwidth, which every rank records as the
//   whole job's) once for the run, the job's median against the other run's;
// - a figure measured on a GPU by that GPU's UUID, wherever it sits now: a throttled GPU is worse on
//   its own row, and a replaced one is missing beside a new one;
// - any other figure by its node and local rank (a rerun may number ranks differently);
// - an identifier (a figure whose unit is "rank": mpi_coll.slowest_rank) never: it names a rank, it
//   is not better or worse.
#pragma once

#include "analysis/load/observations.hpp"
#include "core/result.hpp"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shakedown::analysis {

enum class Change { worse, better, same, added, missing };
std::string_view to_string(Change change);  // "worse", "better", "same", "new", "missing"

enum class ComparedAs { job, gpu, rank };
std::string_view to_string(ComparedAs as);  // "job", "gpu", "rank"

// One rank's figure in one run.
struct ComparedValue {
    std::string node;
    int local_rank = 0;
    std::string gpu_uuid;  // the GPU that measured it; "" for a figure of the host
    std::string test;
    std::string metric;
    std::string unit;
    Better better = Better::higher;
    double value = 0.0;
};

struct FigureChange {
    ComparedAs as = ComparedAs::rank;
    std::string test;
    std::string metric;
    std::string unit;
    Better better = Better::higher;
    std::string node;  // rank and GPU rows: the node (NEW's, else OLD's); job rows: ""
    int local_rank = 0;
    std::string gpu_uuid;             // GPU rows
    std::optional<double> old_value;  // job rows: the median over the ranks that recorded it
    std::optional<double> new_value;
    int old_values = 0;  // how many values each is (job rows: ranks; else 1)
    int new_values = 0;
    std::optional<std::size_t> new_index;  // rank and GPU rows: the new value's index in its input
    Change change = Change::same;
    // How much worse than OLD in the figure's direction, as a fraction of OLD (negative: better);
    // none where OLD is 0 or either value is absent.
    std::optional<double> worse_by;
};

// Every figure of either run, non-finite values left out: NEW's in the order they first appear,
// then those only OLD has. A change beyond `tolerance` (a fraction of OLD) in the figure's worse
// direction is `worse`, in its better direction `better`; from an OLD of 0 any change is beyond.
std::vector<FigureChange> compare_figures(const std::vector<ComparedValue>& old_values,
                                          const std::vector<ComparedValue>& new_values, double tolerance);

// Whether the rank's GPU measured this result: the test recorded `device: gpu`, or it records no
// placement and its declaration needs CUDA (nccl, gemm_ladder); a rank without a GPU UUID, a test
// recorded on the host and a host or network test (mpi_pingpong, storage) are not.
bool measured_by_its_gpu(const RankIdentity& who, const TestResult& test);

// Whether `metric` of test `test` is declared job-wide (core/test_spec.hpp MetricScope::job); a
// test or metric this binary does not declare counts as the rank's own.
bool is_job_wide(const std::string& test, const std::string& metric);

}  // namespace shakedown::analysis
