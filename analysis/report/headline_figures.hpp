// Every test's headline figures (core/test_spec.hpp HeadlineFigure), by their place: the report's
// per-node bar charts lead with the charted ones and the price table prices the priced ones, so
// the analyzer names no test's figure itself.
#pragma once

#include "core/test_spec.hpp"

#include <string>
#include <vector>

namespace shakedown::analysis {

struct DeclaredHeadline {
    std::string test;
    HeadlineFigure figure;
};

// Every headline figure the tests of this binary declare, by place (then test and metric).
std::vector<DeclaredHeadline> headline_figures();

}  // namespace shakedown::analysis
