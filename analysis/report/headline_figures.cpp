#include "analysis/report/headline_figures.hpp"

#include "core/registry.hpp"

#include <algorithm>
#include <tuple>

namespace shakedown::analysis {

std::vector<DeclaredHeadline> headline_figures() {
    std::vector<DeclaredHeadline> figures;
    for (const auto& test : Registry::instance().tests())
        for (const HeadlineFigure& figure : test->spec().headline) figures.push_back({test->spec().key, figure});
    std::sort(figures.begin(), figures.end(), [](const DeclaredHeadline& a, const DeclaredHeadline& b) {
        return std::tie(a.figure.place, a.test, a.figure.metric) < std::tie(b.figure.place, b.test, b.figure.metric);
    });
    return figures;
}

}  // namespace shakedown::analysis
