#include "core/errors.hpp"
#include "core/registry.hpp"
#include "sample_tests.hpp"

#include <gtest/gtest.h>

namespace shakedown::testing {
SHAKEDOWN_REGISTER_TEST(AlphaTest);
SHAKEDOWN_REGISTER_TEST(BetaTest);

namespace {

std::vector<std::string> keys(const std::vector<const Test*>& tests) {
    std::vector<std::string> out;
    for (const auto* test : tests) out.emplace_back(test->key());
    return out;
}

TEST(Registry, SelfRegisteredTestsAreFoundByKey) {
    const auto& registry = Registry::instance();
    ASSERT_NE(registry.find("alpha"), nullptr);
    EXPECT_EQ(registry.find("alpha")->description(), "first sample test");
    EXPECT_EQ(registry.find("gamma"), nullptr);
    EXPECT_EQ(registry.suites(), (std::vector<std::string>{"full", "quick"}));
}

TEST(Registry, SuiteSelectsItsTestsMinusExcluded) {
    const auto& registry = Registry::instance();
    EXPECT_EQ(keys(registry.select("full", {}, {})), (std::vector<std::string>{"alpha", "beta"}));
    EXPECT_EQ(keys(registry.select("quick", {}, {})), (std::vector<std::string>{"alpha"}));
    EXPECT_EQ(keys(registry.select("full", {}, {"alpha"})), (std::vector<std::string>{"beta"}));
}

TEST(Registry, ExplicitTestsKeepTheirOrderAndDropDuplicates) {
    EXPECT_EQ(keys(Registry::instance().select("quick", {"beta", "alpha", "beta"}, {})),
              (std::vector<std::string>{"beta", "alpha"}));
}

TEST(Registry, UnknownNamesAreInputErrorsListingTheChoices) {
    const auto& registry = Registry::instance();
    try {
        (void)registry.select("quick", {"alpah"}, {});
        FAIL() << "no error";
    } catch (const InputError& error) {
        EXPECT_STREQ(error.what(), "unknown test 'alpah' (known: alpha, beta)");
    }
    EXPECT_THROW((void)registry.select("nightly", {}, {}), InputError);
    EXPECT_THROW((void)registry.select("quick", {}, {"nope"}), InputError);
}

}  // namespace
}  // namespace shakedown::testing
