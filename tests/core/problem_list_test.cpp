// ProblemList: one failure reason with the first three problems and a count of the rest.
#include "core/problem_list.hpp"

#include <gtest/gtest.h>

namespace shakedown {
namespace {

TEST(ProblemList, NothingAddedLeavesTheResultPassing) {
    TestResult result;
    ProblemList("payload mismatches").fail(result);
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_TRUE(result.reason.empty());
}

TEST(ProblemList, ShowsTheFirstThreeAndCountsTheRest) {
    ProblemList errors("results with wrong elements");
    for (int i = 1; i <= 5; ++i) errors.add("r" + std::to_string(i), 10);
    EXPECT_EQ(errors.total(), 50u);
    TestResult result;
    errors.fail(result, "50 wrong elements in 5 results: ");
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.reason, "50 wrong elements in 5 results: r1; r2; r3; and 2 more results with wrong elements");
}

TEST(ProblemList, UpToThreeAreAllShownWithoutACount) {
    ProblemList mismatches("payload mismatches");
    mismatches.add("a");
    mismatches.add("b");
    EXPECT_EQ(mismatches.describe(), "a; b");
    mismatches.add("c");
    EXPECT_EQ(mismatches.describe(), "a; b; c");
}

}  // namespace
}  // namespace shakedown
