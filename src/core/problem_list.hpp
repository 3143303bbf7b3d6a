// The problems of one kind a test found (wrong elements per result, payload mismatches per
// pair), reported as one failure reason with the first few in full and a count of the rest, so a
// fault that breaks every message reads as one line instead of thousands:
//   "20 wrong elements in 20 results: allreduce 8 B: ...; ...; ...; and 17 more results with wrong elements"
#pragma once

#include "core/result.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace shakedown {

class ProblemList {
public:
    static constexpr std::size_t shown = 3;

    // `items`: what one entry is, plural ("results with wrong elements", "payload mismatches").
    explicit ProblemList(std::string items) : items_(std::move(items)) {}

    // One entry; `weight` is what it counts towards the total (its wrong elements), 1 by default.
    void add(std::string line, std::size_t weight = 1);
    bool empty() const { return lines_.empty(); }
    std::size_t size() const { return lines_.size(); }

    // "first; second; third; and N more <items>", prefixed by `headline` when given.
    std::string describe(const std::string& headline = {}) const;
    // Fails `result` with describe(headline) when there is anything; no-op otherwise.
    void fail(TestResult& result, const std::string& headline = {}) const;
    // The summed weights ("20 wrong elements").
    std::size_t total() const { return total_; }

private:
    std::string items_;
    std::vector<std::string> lines_;
    std::size_t total_ = 0;
};

}  // namespace shakedown
