#include "core/errors.hpp"
#include "core/registry.hpp"
#include "sample_tests.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace shakedown::testing {
SHAKEDOWN_REGISTER_TEST(AlphaTest);
SHAKEDOWN_REGISTER_TEST(BetaTest);
SHAKEDOWN_REGISTER_SPEC(delta_spec);

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
    EXPECT_EQ(keys(registry.select("full", {}, {})), (std::vector<std::string>{"alpha", "beta", "delta"}));
    EXPECT_EQ(keys(registry.select("quick", {}, {})), (std::vector<std::string>{"alpha"}));
    EXPECT_EQ(keys(registry.select("full", {}, {"alpha"})), (std::vector<std::string>{"beta", "delta"}));
}

TEST(Registry, ExplicitTestsKeepTheirOrderAndDropDuplicates) {
    EXPECT_EQ(keys(Registry::instance().select("quick", {"beta", "alpha", "beta"}, {})),
              (std::vector<std::string>{"beta", "alpha"}));
}

// A selection of nothing would run nothing and pass: refused.
TEST(Registry, NothingLeftToRunIsAnInputError) {
    const auto& registry = Registry::instance();
    try {
        (void)registry.select("quick", {"alpha"}, {"alpha"});
        FAIL() << "no error";
    } catch (const InputError& error) {
        EXPECT_STREQ(error.what(), "nothing to run: --exclude alpha removes every test of --tests alpha");
    }
    EXPECT_THROW((void)registry.select("quick", {}, {"alpha"}), InputError);
}

TEST(Registry, UnknownNamesAreInputErrorsListingTheChoices) {
    const auto& registry = Registry::instance();
    try {
        (void)registry.select("quick", {"alpah"}, {});
        FAIL() << "no error";
    } catch (const InputError& error) {
        EXPECT_STREQ(error.what(), "unknown test 'alpah' (did you mean 'alpha'?) (known: alpha, beta, delta)");
    }
    EXPECT_THROW((void)registry.select("nightly", {}, {}), InputError);
    EXPECT_THROW((void)registry.select("quick", {}, {"nope"}), InputError);
}

// A wildcard selects every key it matches, in the registry's order; an explicit name keeps its place.
TEST(Registry, APatternSelectsTheTestsItMatches) {
    const auto& registry = Registry::instance();
    EXPECT_EQ(keys(registry.select("quick", {"*ta"}, {})), (std::vector<std::string>{"beta", "delta"}));
    EXPECT_EQ(keys(registry.select("quick", {"delta", "?l*"}, {})), (std::vector<std::string>{"delta", "alpha"}));
    EXPECT_EQ(keys(registry.select("full", {}, {"[bd]*"})), (std::vector<std::string>{"alpha"}));
    EXPECT_EQ(keys(registry.select("quick", {"*"}, {"alpha"})), (std::vector<std::string>{"beta", "delta"}));
    EXPECT_EQ(registry.expand({"*a", "beta"}, ""), (std::vector<std::string>{"alpha", "beta", "delta"}));
}

// A pattern that matches nothing is a typo as surely as an unknown name: one line, not an empty run.
TEST(Registry, APatternMatchingNothingIsAnInputError) {
    const auto& registry = Registry::instance();
    try {
        (void)registry.select("quick", {"gam*"}, {});
        FAIL() << "no error";
    } catch (const InputError& error) {
        EXPECT_STREQ(error.what(), "pattern 'gam*' matches no test (known: alpha, beta, delta)");
    }
    try {
        (void)registry.select("full", {}, {"x?"});
        FAIL() << "no error";
    } catch (const InputError& error) {
        EXPECT_STREQ(error.what(), "pattern 'x?' in --exclude matches no test (known: alpha, beta, delta)");
    }
    EXPECT_THROW((void)registry.select("quick", {"*"}, {"*"}), InputError);  // nothing left
}

}  // namespace
}  // namespace shakedown::testing

namespace shakedown::testing {
namespace {

TEST(Registry, ADeclarationWithoutItsCodeStandsForTheTestAndSaysWhyItCannotRun) {
    const shakedown::Test* delta = Registry::instance().find("delta");
    ASSERT_NE(delta, nullptr);
    EXPECT_EQ(delta->description(), "a test this build lacks");
    EXPECT_FALSE(Registry::instance().is_built(*delta));
    EXPECT_TRUE(Registry::instance().is_built(*Registry::instance().find("alpha")));
    const auto missing = first_missing(delta->spec().needs);
    const std::string expected =
        missing ? "this shakedown was built without " + std::string(to_string(*missing)) : "not built into this shakedown";
    EXPECT_EQ(not_built_reason(delta->spec()), expected);
}

TEST(Registry, MetricNamesExpandFromTheirDeclaration) {
    const TestSpec& spec = alpha_spec();
    EXPECT_EQ(spec.metric_names(), (std::vector<std::string>{"alpha.copy_gbs", "alpha.triad_gbs", "alpha.latency_us"}));
    ASSERT_NE(spec.metric("alpha.triad_gbs"), nullptr);
    EXPECT_EQ(spec.metric("alpha.triad_gbs")->unit, "GB/s");
    EXPECT_EQ(spec.metric("alpha.tirad_gbs"), nullptr);
}

// A name matches its pattern exactly when the pattern expands to it (matching does not expand).
TEST(Registry, APatternMatchesExactlyTheNamesItExpandsTo) {
    for (const std::string pattern : {"a.{x,y}_{p,q}", "plain.name", "a.{x,xy}_z", "a.{,b}c", "a.{x,y", "a.{x}{y,z}"}) {
        const MetricSpec spec{pattern, "1", Better::higher, ""};
        const auto names = spec.names();
        for (const std::string& name : names) EXPECT_TRUE(spec.matches(name)) << pattern << " " << name;
        for (const std::string name : {"a.x_p", "a.xy_z", "a.x_z", "a.c", "a.bc", "a.{x,y", "a.xy", "a.xz", "plain.name",
                                       "plain.nam", "a.x_", "", "a.x_pq"})
            EXPECT_EQ(spec.matches(name), std::find(names.begin(), names.end(), name) != names.end())
                << pattern << " " << name;
    }
}

TEST(Registry, AMetricTheTestDidNotDeclareMakesTheResultAnError) {
    TestResult result;
    result.add_metric("alpha.latency_us", 1.5);
    apply_declarations(alpha_spec(), result);
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_EQ(result.metrics[0].unit, "us");
    EXPECT_EQ(result.metrics[0].better, Better::lower);
    result.add_metric("alpha.made_up", 2.0);
    apply_declarations(alpha_spec(), result);
    EXPECT_EQ(result.status, Status::error);
    EXPECT_NE(result.reason.find("'alpha.made_up', which it does not declare"), std::string::npos) << result.reason;
}

TEST(Registry, SamplesWithOtherColumnsThanDeclaredMakeTheResultAnError) {
    TestResult declared;
    declared.samples = SampleTable(beta_spec().samples);
    apply_declarations(beta_spec(), declared);
    EXPECT_EQ(declared.status, Status::pass);
    TestResult drifted;
    drifted.samples = SampleTable({{"kernel", "id"}, {"gbs", "GB/s"}});
    apply_declarations(beta_spec(), drifted);
    EXPECT_EQ(drifted.status, Status::error);
    EXPECT_NE(drifted.reason.find("other columns than it declares"), std::string::npos) << drifted.reason;
}

}  // namespace
}  // namespace shakedown::testing
