// "Did you mean": the nearest names by edit distance, suggested only where one is close.
#include "core/nearest_names.hpp"

#include <gtest/gtest.h>

namespace shakedown {
namespace {

const std::vector<std::string> tests{"stream", "dgemm_fp64", "stencil3d", "train_step", "p2p"};

TEST(NearestNames, EditDistanceCountsInsertionsDeletionsAndSubstitutions) {
    EXPECT_EQ(edit_distance("strem", "stream"), 1u);
    EXPECT_EQ(edit_distance("stream", "stream"), 0u);
    EXPECT_EQ(edit_distance("", "p2p"), 3u);
    EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(NearestNames, NearestFirstEachOnce) {
    const auto nearest = nearest_names("strem", tests, 2);
    ASSERT_EQ(nearest.size(), 2u);
    EXPECT_EQ(nearest.front(), "stream");
    EXPECT_EQ(nearest_names("x", {"a", "a", "b"}, 5), (std::vector<std::string>{"a", "b"}));
}

TEST(NearestNames, SuggestsOnlyWhatIsLikelyMeant) {
    EXPECT_EQ(did_you_mean("strem", tests), " (did you mean 'stream'?)");
    EXPECT_EQ(did_you_mean("trainstep", tests), " (did you mean 'train_step'?)");
    EXPECT_EQ(did_you_mean("burnin_gpu_memory", tests), "");
    EXPECT_EQ(did_you_mean("anything", {}), "");
}

}  // namespace
}  // namespace shakedown
