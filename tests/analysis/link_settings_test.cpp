// The links settings: the built-in bands are the documented ones (and the LinkBands defaults), a
// site file overrides them key by key, mistakes are one line with the file and line, and the
// noise margin's sigmas grow with the number of figures judged at once.
#include "analysis/rules/links/link_statistics.hpp"
#include "analysis/rules/settings/thresholds.hpp"
#include "core/errors.hpp"

#include <gtest/gtest.h>

namespace shakedown::analysis {
namespace {

std::string parse_error(const std::string& yaml) {
    try {
        Thresholds::parse(yaml, "my.yaml");
    } catch (const InputError& error) {
        return error.what();
    }
    return "(no error)";
}

TEST(LinkSettings, TheBuiltInBandsAreTheDocumentedDefaults) {
    const LinkBands bands = Thresholds::built_in().settings().link_bands();
    const LinkBands defaults;
    EXPECT_DOUBLE_EQ(bands.link_warn, 0.90);
    EXPECT_DOUBLE_EQ(bands.link_fail, 0.70);
    EXPECT_DOUBLE_EQ(bands.node_warn, 0.90);
    EXPECT_DOUBLE_EQ(bands.node_fail, 0.70);
    EXPECT_DOUBLE_EQ(bands.noise_sigmas, 3.0);
    EXPECT_DOUBLE_EQ(bands.false_fail_rate, 0.001);
    EXPECT_EQ(bands.min_reference_links, 3);
    // default.yaml and the struct agree, so a file parsed on its own judges the same way.
    EXPECT_DOUBLE_EQ(bands.link_warn, defaults.link_warn);
    EXPECT_DOUBLE_EQ(bands.node_fail, defaults.node_fail);
    EXPECT_DOUBLE_EQ(bands.false_fail_rate, defaults.false_fail_rate);
}

TEST(LinkSettings, ASiteFileOverridesKeyByKey) {
    const Thresholds site = Thresholds::parse("metrics:\nlinks: {warn_fraction: 0.8, node_fail_fraction: 0.5, noise_sigmas: 4}\n", "site.yaml");
    const LinkBands bands = Thresholds::built_in().overridden_by(site).settings().link_bands();
    EXPECT_DOUBLE_EQ(bands.link_warn, 0.8);
    EXPECT_DOUBLE_EQ(bands.link_fail, 0.7);  // not named: the default stays
    EXPECT_DOUBLE_EQ(bands.node_fail, 0.5);
    EXPECT_DOUBLE_EQ(bands.noise_sigmas, 4.0);
    // A FAIL band raised above the built-in WARN band lifts the WARN band with it.
    const Thresholds strict = Thresholds::parse("metrics:\nlinks: {slow_fraction: 0.95}\n", "strict.yaml");
    EXPECT_DOUBLE_EQ(Thresholds::built_in().overridden_by(strict).settings().link_bands().link_warn, 0.95);
}

TEST(LinkSettings, MistakesAreOneLineWithTheirLine) {
    EXPECT_EQ(parse_error("metrics:\nlinks: {warn_fraction: 0.6, slow_fraction: 0.7}\n"),
              "my.yaml:2: links: warn_fraction (0.6) is below slow_fraction (0.7)");
    EXPECT_EQ(parse_error("metrics:\nlinks: {node_warn_fraction: 0.5, node_fail_fraction: 0.6}\n"),
              "my.yaml:2: links: node_warn_fraction (0.5) is below node_fail_fraction (0.6)");
    EXPECT_EQ(parse_error("metrics:\nlinks: {noise_sigmas: 30}\n"), "my.yaml:2: links.noise_sigmas: expected 0 to 20, got 30");
    EXPECT_EQ(parse_error("metrics:\nlinks: {false_fail_rate: 0.5}\n"), "my.yaml:2: links.false_fail_rate: must be below 0.5, got 0.5");
    EXPECT_EQ(parse_error("metrics:\nlinks: {min_reference_links: 0.5}\n"),
              "my.yaml:2: links.min_reference_links: expected a whole number of at least 1, got 0.5");
    EXPECT_NE(parse_error("metrics:\nlinks: {fail_fraction: 0.7}\n").find("unknown key 'fail_fraction' (expected warn_fraction, "
                                                                          "slow_fraction"),
              std::string::npos);
}

TEST(LinkSettings, TheNoiseMarginGrowsWithTheFiguresJudged) {
    const LinkBands bands;
    EXPECT_NEAR(family_sigmas(1, bands), 3.09, 0.01);  // the 0.001 quantile of one figure
    EXPECT_NEAR(family_sigmas(6, bands), 3.59, 0.01);
    EXPECT_NEAR(family_sigmas(120, bands), 4.31, 0.01);
    EXPECT_NEAR(family_sigmas(130816, bands), 5.66, 0.01);
    LinkBands strict;
    strict.noise_sigmas = 4.0;
    EXPECT_DOUBLE_EQ(family_sigmas(6, strict), 4.0);  // never below noise_sigmas
    // A band is tightened by the margin only where the noise is large.
    const Bounds quiet = effective_bounds(0.9, 0.7, 0.01, 3.6);
    EXPECT_DOUBLE_EQ(quiet.warn, 0.9);
    EXPECT_DOUBLE_EQ(quiet.fail, 0.7);
    EXPECT_FALSE(quiet.noise_limited);
    const Bounds noisy = effective_bounds(0.9, 0.7, 0.13, 3.6);
    EXPECT_NEAR(noisy.fail, 0.626, 0.001);
    EXPECT_TRUE(noisy.noise_limited);
    // With that much noise the WARN band is inside the margin too: 0.65 cannot be told from noise.
    EXPECT_DOUBLE_EQ(noisy.warn, noisy.fail);
    EXPECT_EQ(level_of(0.65, noisy), Level::pass);
    EXPECT_EQ(level_of(0.60, noisy), Level::fail);
    EXPECT_EQ(level_of(0.80, effective_bounds(0.9, 0.7, 0.02, 3.6)), Level::warn);
}

}  // namespace
}  // namespace shakedown::analysis
