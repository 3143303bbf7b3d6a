// sdc_dgemm's comparisons without MPI or a GPU: bit-for-bit differences (a flipped lowest bit, a
// negative zero), checksums, and the node's majority naming the device that differs.
#include "health/sdc/result_agreement.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace shakedown::health {
namespace {

TEST(SdcBitDifference, FlippedLowestBitAndNegativeZeroAreDifferences) {
    const std::vector<double> first{1.0, 2.0, 0.0, 4.0};
    EXPECT_FALSE(bit_difference(first, first));
    std::vector<double> second = first;
    std::uint64_t bits = 0;
    std::memcpy(&bits, &second[1], sizeof bits);
    bits ^= 1;
    std::memcpy(&second[1], &bits, sizeof bits);
    second[2] = -0.0;  // equal as a value, not as bits
    const auto difference = bit_difference(first, second);
    ASSERT_TRUE(difference);
    EXPECT_EQ(difference->elements, 2u);
    EXPECT_EQ(difference->first, 1u);
    EXPECT_EQ(difference->first_value, 2.0);
    EXPECT_NE(result_checksum(first), result_checksum(second));
    EXPECT_EQ(result_checksum(first), result_checksum(std::vector<double>(first)));
}

TEST(SdcNodeAgreement, TheDeviceOffTheMajorityIsNamed) {
    const auto found = node_disagreements({{0, "GPU 0", 0xaa}, {1, "GPU 1", 0xbb}, {2, "GPU 2", 0xaa}, {3, "GPU 3", 0xaa}});
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].rank, 1);
    EXPECT_EQ(found[0].reason,
              "rank 1 (GPU 1) computed checksum 00000000000000bb, 3 of the node's 4 devices computed 00000000000000aa "
              "from the same inputs");
}

TEST(SdcNodeAgreement, AgreeingOrUncomparedDevicesGiveNothingAndATieNamesAll) {
    EXPECT_TRUE(node_disagreements({{0, "GPU 0", 0xaa}, {1, "GPU 1", 0xaa}}).empty());
    EXPECT_TRUE(node_disagreements({{0, "GPU 0", 0xaa}, {1, "GPU 1", std::nullopt}}).empty());  // not repeatable: not compared
    EXPECT_TRUE(node_disagreements({{0, "host", 0xaa}}).empty());
    const auto tie = node_disagreements({{0, "GPU 0", 0xaa}, {1, "GPU 1", 0xbb}});
    ASSERT_EQ(tie.size(), 2u);
    EXPECT_NE(tie[0].reason.find("agree on no checksum"), std::string::npos) << tie[0].reason;
}

}  // namespace
}  // namespace shakedown::health
