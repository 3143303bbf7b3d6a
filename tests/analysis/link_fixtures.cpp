#include "link_fixtures.hpp"

#include "analysis/report/drain_output.hpp"
#include "analysis/rules/model/verdicts.hpp"
#include "analysis_fixtures.hpp"

#include <algorithm>

namespace shakedown::analysis::testing {

LinkCase::LinkCase(const bench::SyntheticRunSpec& shape)
    : run_(std::make_unique<LoadedRun>(loaded_run(healthy_traces(shape.ranks, shape.ranks_per_node)))),
      observations_(std::make_unique<Observations>(*run_)) {}

LinkLocalization LinkCase::localize(const bench::SyntheticRunSpec& spec, const Topology* topology,
                                    const LinkBands& bands) const {
    return localize_links(bench::synthetic_link_matrix(spec), *observations_, topology, bands);
}

std::vector<Finding> LinkCase::findings(const LinkLocalization& localization) const {
    return link_findings(localization, *observations_);
}

std::vector<std::string> LinkCase::drained(std::vector<Finding> findings) const {
    for (Finding& finding : findings)
        if (finding.needs_confirmation()) finding.confirmation = Confirmation::confirmed;
    std::vector<std::string> nodes;
    for (const slurm::DrainRequest& request : drain_list(judge(*observations_, findings)).requests)
        nodes.push_back(request.node);
    return nodes;
}

Level worst_level(const std::vector<Finding>& findings) {
    Level worst = Level::pass;
    for (const Finding& finding : findings) worst = std::max(worst, finding.level);
    return worst;
}

std::string node_name(int index) { return bench::synthetic_node_name(index); }

bench::SyntheticRunSpec allpairs_fleet(int nodes, int ranks_per_node) {
    bench::SyntheticRunSpec spec;
    spec.ranks = nodes * ranks_per_node;
    spec.ranks_per_node = ranks_per_node;
    spec.gpus = false;
    spec.tests = {"allpairs"};
    return spec;
}

}  // namespace shakedown::analysis::testing
