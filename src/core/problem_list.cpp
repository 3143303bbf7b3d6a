#include "core/problem_list.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace shakedown {

void ProblemList::add(std::string line, std::size_t weight) {
    lines_.push_back(std::move(line));
    total_ += weight;
}

std::string ProblemList::describe(const std::string& headline) const {
    std::string text = headline;
    for (std::size_t i = 0; i < std::min(shown, lines_.size()); ++i) text += (i == 0 ? "" : "; ") + lines_[i];
    if (lines_.size() > shown) text += fmt::format("; and {} more {}", lines_.size() - shown, items_);
    return text;
}

void ProblemList::fail(TestResult& result, const std::string& headline) const {
    if (!lines_.empty()) result.fail(describe(headline));
}

}  // namespace shakedown
