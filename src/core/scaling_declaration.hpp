// What a test that measures weak scaling declares about its figures, so that one analyzer rule
// (analysis/rules/figures/scaling_rule) judges every such test the same way: each rank's work alone (T1,
// all ranks loaded at once), the job's efficiency T1 / T(job) against the efficiency this run's own
// figures predict, and the figure the prediction's communication came from. The test declares
// these beside its other names (its *_names.hpp) with the words its findings use; the rule reads
// the declaration, never the test's keys as strings.
#pragma once

#include <string_view>

namespace shakedown {

struct ScalingDeclaration {
    std::string_view test;                      // the test's key
    std::string_view alone_step_s;              // per rank: the median step alone (no communication)
    std::string_view step_noise;                // per rank: (p95 - median) / median of its step times
    std::string_view job_efficiency;            // the same on every rank: median T1 over the job's step
    std::string_view predicted_job_efficiency;  // from this run's T1 and communication figure
    std::string_view job_comm_gbs;              // the communication figure the prediction used
    // Optional (empty: the test has no such figure): a node's phase over its own ranks, and a node
    // leader's network link measured with other nodes' leaders.
    std::string_view node_efficiency;
    std::string_view predicted_node_efficiency;
    std::string_view node_comm_gbs;
    std::string_view node_link_gbs;

    // Words of the findings.
    std::string_view work;              // "the training step": what a rank runs alone
    std::string_view job_step;          // "data-parallel step": what the job runs
    std::string_view comm_figure;       // "all-reduce bus bandwidth": what job_comm_gbs is
    std::string_view waits_for_it;      // why a rank slow alone slows the job
    std::string_view unexplained_cause; // what a shortfall no slow rank or link explains points at
};

// The figures of the halo-exchanging tests' scaling phases (kernels/stencil/stencil_scaling.hpp
// records them; stencil3d and cg_fp64 declare their names): serial_comm_step_s empty where a test
// has no communication beside its halo exchange.
struct ScalingFigureNames {
    std::string_view alone_step_s, halo_step_s, serial_comm_step_s, job_step_s, halo_gbs, step_noise;
    std::string_view job_efficiency, predicted_job_efficiency, job_halo_gbs;
};

}  // namespace shakedown
