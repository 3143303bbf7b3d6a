// The configuration a run ran with, as the report shows it: the resolved YAML rank 0 recorded in
// its trace (/config: suite, tests, parameters, deadlines, faults), its sha256, and the faults it
// planted. A planted corruption reads as a real data-corruption FAIL; the report says when the
// run's faults were planted on purpose, before anything else.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace shakedown::analysis {

struct RunConfiguration {
    std::string text;                         // the resolved YAML as recorded
    std::string sha256;                       // of those bytes, lowercase hex
    std::vector<std::string> planted_faults;  // "corrupt on stream at rank 1", "delay on allpairs at rank 3, 0.5 s"
    std::string problem;                      // why the faults could not be read from it ("" when they could)
};

// Nothing when the run recorded no configuration (a trace without /config, or unreadable).
std::optional<RunConfiguration> run_configuration(const std::optional<std::string>& resolved_yaml);

}  // namespace shakedown::analysis
