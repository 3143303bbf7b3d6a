// In-process link cases from the fault bench (bench/synthetic_run.hpp's synthetic_link_matrix):
// no files, so a rule can be shown on a thousand seeds cheaply. A LinkCase is a run of the spec's
// shape (ranks, ranks per node; healthy stream and pingpong results on every rank); each call
// localizes one matrix, and says what the findings and drain.txt of it would be.
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/links/link_localization.hpp"
#include "bench/synthetic_run.hpp"

#include <memory>
#include <string>
#include <vector>

namespace shakedown::analysis::testing {

class LinkCase {
public:
    explicit LinkCase(const bench::SyntheticRunSpec& shape);

    // The spec's matrix (its faults, noise, rounds and seed) localized on this run.
    LinkLocalization localize(const bench::SyntheticRunSpec& spec, const Topology* topology = nullptr,
                              const LinkBands& bands = {}) const;
    std::vector<Finding> findings(const LinkLocalization& localization) const;
    // The nodes drain.txt would drain, given these findings besides the healthy results, once a
    // confirmation run measured the same figures again (every figure FAIL confirmed).
    std::vector<std::string> drained(std::vector<Finding> findings) const;
    const Observations& observations() const { return *observations_; }

private:
    std::unique_ptr<LoadedRun> run_;
    std::unique_ptr<Observations> observations_;  // rows point into *run_
};

// The worst level of any finding (pass when there is none).
Level worst_level(const std::vector<Finding>& findings);

std::string node_name(int index);  // bench::synthetic_node_name

// A fleet of `nodes` CPU nodes running allpairs only, `ranks_per_node` ranks each, no faults.
bench::SyntheticRunSpec allpairs_fleet(int nodes, int ranks_per_node = 1);

}  // namespace shakedown::analysis::testing
