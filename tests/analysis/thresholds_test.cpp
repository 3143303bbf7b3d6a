// The thresholds file: the built-in defaults, overrides, and one clear file:line per mistake.
#include "analysis/default_thresholds.hpp"
#include "analysis/thresholds.hpp"
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

TEST(Thresholds, BuiltInDefaultsParseAndCoverTheKnownMetrics) {
    EXPECT_NE(default_thresholds_yaml().find("stream.triad_gbs"), std::string_view::npos);
    const Thresholds thresholds = Thresholds::built_in();
    const MetricRule* triad = thresholds.rule_for("stream.triad_gbs");
    ASSERT_NE(triad, nullptr);
    ASSERT_TRUE(triad->fraction_of_nominal);
    EXPECT_DOUBLE_EQ(*triad->fraction_of_nominal->warn, 0.8);
    EXPECT_DOUBLE_EQ(*triad->fraction_of_nominal->fail, 0.6);
    const MetricRule* dgemm = thresholds.rule_for("dgemm_fp64.tflops");
    ASSERT_NE(dgemm, nullptr);
    EXPECT_DOUBLE_EQ(*dgemm->fraction_of_nominal->warn, 0.85);
    EXPECT_DOUBLE_EQ(*dgemm->fraction_of_nominal->fail, 0.7);
    for (const char* latency : {"mpi_pingpong.latency_us", "mpi_pingpong.leader_latency_us"}) {
        const MetricRule* rule = thresholds.rule_for(latency);
        ASSERT_NE(rule, nullptr) << latency;
        EXPECT_DOUBLE_EQ(*rule->fail_above, 1000.0);
    }
    EXPECT_NE(thresholds.rule_for("gpu_stream.triad_gbs"), nullptr);
    EXPECT_NE(thresholds.rule_for("gemm_bf16.tflops"), nullptr);
    EXPECT_NE(thresholds.rule_for("nccl_allreduce.busbw_gbs"), nullptr);
    EXPECT_EQ(thresholds.rule_for("stream.copy_gbs"), nullptr);
    EXPECT_EQ(thresholds.rule_for("mpi_pingpong.latency_p99_us"), nullptr);
}

TEST(Thresholds, OverridesReplaceARuleWholeAndCanSwitchItOff) {
    const Thresholds overrides = Thresholds::parse(
        "metrics:\n"
        "  stream.triad_gbs: {fail_below: 3}\n"
        "  dgemm_fp64.tflops: {}\n"
        "  \"gemm_bf*.tflops\": {fail_below: 100}\n"
        "  my_test.rate_gbs: {warn_below: 1}\n",
        "site.yaml");
    const Thresholds merged = Thresholds::built_in().overridden_by(overrides);
    const MetricRule* triad = merged.rule_for("stream.triad_gbs");
    ASSERT_NE(triad, nullptr);
    EXPECT_FALSE(triad->fraction_of_nominal);
    EXPECT_DOUBLE_EQ(*triad->fail_below, 3.0);
    EXPECT_EQ(triad->origin, "site.yaml:2");
    EXPECT_FALSE(merged.rule_for("dgemm_fp64.tflops")->judges_anything());
    EXPECT_DOUBLE_EQ(*merged.rule_for("gemm_bf16.tflops")->fail_below, 100.0);  // the user's pattern wins
    EXPECT_TRUE(merged.rule_for("gemm_fp16.tflops")->fraction_of_nominal);      // the default pattern still applies
    EXPECT_NE(merged.rule_for("my_test.rate_gbs"), nullptr);
    EXPECT_EQ(merged.source(), "default.yaml (built in) + site.yaml");
}

TEST(Thresholds, MalformedYamlNamesFileAndLine) {
    EXPECT_EQ(parse_error("metrics:\n  stream.triad_gbs: {warn_below: 3\n  x: 1\n").substr(0, 8), "my.yaml:");
    const std::string error = parse_error("metrics:\n  a: [1, 2\n");
    EXPECT_NE(error.find("malformed YAML"), std::string::npos) << error;
}

TEST(Thresholds, UnknownKeysAreRejectedWithTheirLine) {
    EXPECT_EQ(parse_error("metrics:\n  stream.triad_gbs:\n    fail_belw: 3\n"),
              "my.yaml:3: stream.triad_gbs: unknown key 'fail_belw' (expected fail_below, warn_below, fail_above, "
              "warn_above, fraction_of_nominal)");
    EXPECT_EQ(parse_error("metric:\n  a: {}\n"), "my.yaml:1: unknown key 'metric' (expected 'metrics')");
    EXPECT_EQ(parse_error("metrics:\n  a:\n    fraction_of_nominal: {warn: 0.8, fial: 0.6}\n"),
              "my.yaml:3: a.fraction_of_nominal: unknown key 'fial' (expected warn, fail)");
}

TEST(Thresholds, WrongTypesAndInconsistentBandsAreRejected) {
    EXPECT_EQ(parse_error("metrics:\n  a:\n    fail_below: fast\n"),
              "my.yaml:3: a.fail_below: expected a finite number, got 'fast'");
    EXPECT_EQ(parse_error("metrics:\n  a:\n    fail_below: [1]\n"),
              "my.yaml:3: a.fail_below: expected a number, got (a list)");
    EXPECT_EQ(parse_error("metrics:\n  a: {warn_below: 1, fail_below: 2}\n"),
              "my.yaml:2: a: warn_below (1) is below fail_below (2)");
    EXPECT_EQ(parse_error("metrics:\n  a:\n    fraction_of_nominal: {warn: 0.5, fail: 0.6}\n"),
              "my.yaml:3: a.fraction_of_nominal: warn (0.5) is below fail (0.6): the WARN band must lie above the FAIL band");
    EXPECT_EQ(parse_error("metrics:\n  a: 3\n"),
              "my.yaml:2: a: expected a map of fail_below, warn_below, fail_above, warn_above, fraction_of_nominal");
    EXPECT_EQ(parse_error("metrics:\n  a: {fail_below: .nan}\n"), "my.yaml:2: a.fail_below: expected a finite number, got '.nan'");
    EXPECT_EQ(parse_error(""), "my.yaml:1: empty thresholds file (expected 'metrics:')");
    EXPECT_EQ(parse_error("- a\n- b\n"), "my.yaml:1: expected a map with the key 'metrics'");
    EXPECT_EQ(parse_error("metrics:\n  a: {}\n  a: {}\n"), "my.yaml:3: metrics: 'a' appears twice");
}

TEST(Thresholds, MissingFileIsOneLine) {
    try {
        Thresholds::from_file("/nonexistent/thresholds.yaml");
        FAIL() << "no error";
    } catch (const InputError& error) {
        EXPECT_STREQ(error.what(), "/nonexistent/thresholds.yaml: cannot read the thresholds file");
    }
}

}  // namespace
}  // namespace shakedown::analysis
