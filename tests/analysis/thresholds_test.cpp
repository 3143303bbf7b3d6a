// The thresholds file: the built-in defaults, overrides, and one clear file:line per mistake.
#include "analysis/rules/settings/default_thresholds.hpp"
#include "analysis/rules/settings/thresholds.hpp"
#include "core/errors.hpp"
#include "core/registry.hpp"

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

// Every key of the built-in file names (or matches) a metric some test declares: the defaults
// cannot go stale when a metric is renamed.
TEST(Thresholds, EveryBuiltInKeyMatchesADeclaredMetric) {
    std::vector<std::string> declared;
    for (const auto& test : Registry::instance().tests())
        for (std::string& name : test->spec().metric_names()) declared.push_back(std::move(name));
    ASSERT_GT(declared.size(), 100u);
    EXPECT_NO_THROW(Thresholds::built_in().require_declared(declared));
}

TEST(Thresholds, AKeyNoDeclaredMetricMatchesIsRefusedWithTheNearestNames) {
    const std::vector<std::string> declared = {"stream.triad_gbs", "stream.copy_gbs", "dgemm_fp64.tflops"};
    EXPECT_NO_THROW(Thresholds::parse("metrics:\n  \"stream.*_gbs\": {}\n  dgemm_fp64.tflops: {}\n", "ok.yaml")
                        .require_declared(declared));
    try {
        Thresholds::parse("metrics:\n  dgemm_fp64.tflops: {}\n  \"strem.*\": {}\n", "my.yaml").require_declared(declared);
        FAIL() << "a pattern matching nothing was accepted";
    } catch (const InputError& error) {
        EXPECT_STREQ(error.what(), "my.yaml:3: 'strem.*' matches no metric any test declares (nearest: stream.copy_gbs, "
                                   "stream.triad_gbs, dgemm_fp64.tflops)");
    }
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
    EXPECT_DOUBLE_EQ(*dgemm->fraction_of_nominal->warn, 0.65);
    EXPECT_DOUBLE_EQ(*dgemm->fraction_of_nominal->fail, 0.5);
    for (const char* latency : {"mpi_pingpong.latency_us", "mpi_pingpong.leader_latency_us"}) {
        const MetricRule* rule = thresholds.rule_for(latency);
        ASSERT_NE(rule, nullptr) << latency;
        EXPECT_DOUBLE_EQ(*rule->fail_above, 1000.0);
    }
    // The names the tests write (kernels/, mpi/): no stale patterns.
    const MetricRule* bf16 = thresholds.rule_for("gemm_ladder.bf16_tflops");
    ASSERT_NE(bf16, nullptr);
    EXPECT_DOUBLE_EQ(*bf16->fraction_of_nominal->fail, 0.5);
    ASSERT_TRUE(bf16->fleet_outlier);
    EXPECT_DOUBLE_EQ(bf16->fleet_outlier->k, 4.0);
    EXPECT_NE(thresholds.rule_for("nccl.all_reduce_busbw_gbs"), nullptr);
    EXPECT_NE(thresholds.rule_for("nccl.all_gather_inplace_busbw_gbs"), nullptr);
    EXPECT_NE(thresholds.rule_for("stencil3d.gcells_per_s"), nullptr);
    EXPECT_NE(thresholds.rule_for("p2p.inter_node_latency_us"), nullptr);
    EXPECT_EQ(thresholds.rule_for("gemm_bf16.tflops"), nullptr);
    EXPECT_EQ(thresholds.rule_for("nccl_allreduce.busbw_gbs"), nullptr);
    EXPECT_EQ(thresholds.rule_for("gpu_stream.triad_gbs"), nullptr);
    EXPECT_TRUE(thresholds.rule_for("stream.copy_gbs")->fraction_of_nominal);
    EXPECT_FALSE(thresholds.rule_for("stream.triad_max_gbs")->judges_anything());  // best repetition: shown only
    EXPECT_FALSE(thresholds.rule_for("mpi_pingpong.latency_p99_us")->judges_anything());
    EXPECT_EQ(thresholds.rule_for("allpairs.inter_node_min_over_median"), nullptr);  // localization judges links
    // The settings every built-in rule relies on.
    const AnalysisSettings& settings = thresholds.settings();
    EXPECT_EQ(settings.fleet_min_peers, 3);
    EXPECT_EQ(settings.baseline_tolerance, 0.10);
    EXPECT_EQ(settings.temperature_limit_c, 75.0);
    EXPECT_EQ(settings.link_slow_fraction, 0.7);
    EXPECT_FALSE(settings.node_hour_price());
}

TEST(Thresholds, SettingsAndFleetRulesParseAndOverrideKeyByKey) {
    const Thresholds site = Thresholds::parse(
        "metrics:\n"
        "  my.rate_gbs: {fleet_outlier: {k: 3, warn_deviation: 0.05, fail_deviation: 0.5}}\n"
        "  my.other_gbs: {fleet_outlier: true}\n"
        "baseline: {tolerance: 0.05, level: fail}\n"
        "price: {per_node_month: 7300, currency: EUR}\n",
        "site.yaml");
    const MetricRule* rate = site.rule_for("my.rate_gbs");
    ASSERT_TRUE(rate->fleet_outlier);
    EXPECT_DOUBLE_EQ(rate->fleet_outlier->k, 3.0);
    EXPECT_DOUBLE_EQ(*rate->fleet_outlier->fail_deviation, 0.5);
    EXPECT_DOUBLE_EQ(site.rule_for("my.other_gbs")->fleet_outlier->warn_deviation, 0.10);
    const Thresholds merged = Thresholds::built_in().overridden_by(site);
    EXPECT_DOUBLE_EQ(merged.settings().tolerance(), 0.05);
    EXPECT_TRUE(merged.settings().regression_fails());
    EXPECT_DOUBLE_EQ(*merged.settings().node_hour_price(), 10.0);
    EXPECT_EQ(merged.settings().currency_text(), "EUR");
    EXPECT_DOUBLE_EQ(merged.settings().temperature_limit(), 75.0);  // not named in site.yaml: the default stays
}

TEST(Thresholds, BadSettingsAreRejectedWithTheirLine) {
    EXPECT_EQ(parse_error("metrics:\nbaseline: {tolerance: 0}\n"), "my.yaml:2: baseline.tolerance: must be above 0, got 0");
    EXPECT_EQ(parse_error("metrics:\nbaseline: {level: maybe}\n"),
              "my.yaml:2: baseline.level: expected one of warn, fail, got maybe");
    EXPECT_EQ(parse_error("metrics:\nlinks: {slow_fraction: 1.5}\n"), "my.yaml:2: links.slow_fraction: must be at most 1, got 1.5");
    EXPECT_EQ(parse_error("metrics:\nfleet: {min_peers: 1}\n"),
              "my.yaml:2: fleet.min_peers: expected a whole number of at least 2, got 1");
    EXPECT_EQ(parse_error("metrics:\nprice: {per_node_hour: 1, per_node_month: 2}\n"),
              "my.yaml:2: price: give per_node_hour or per_node_month, not both");
    EXPECT_EQ(parse_error("metrics:\ntelemetry: {temp: 3}\n"),
              "my.yaml:2: telemetry: unknown key 'temp' (expected temperature_limit_c, min_throttle_share, min_clock_fraction)");
    EXPECT_EQ(parse_error("metrics:\n  a: {fleet_outlier: {k: 4, warn_deviation: 0.3, fail_deviation: 0.2}}\n"),
              "my.yaml:2: a.fleet_outlier: fail_deviation (0.2) is below warn_deviation (0.3)");
    EXPECT_EQ(parse_error("metrics:\n  a: {fleet_outlier: {kk: 4}}\n"),
              "my.yaml:2: a.fleet_outlier: unknown key 'kk' (expected k, warn_deviation, fail_deviation)");
}

TEST(Thresholds, OverridesReplaceARuleWholeAndCanSwitchItOff) {
    const Thresholds overrides = Thresholds::parse(
        "metrics:\n"
        "  stream.triad_gbs: {fail_below: 3}\n"
        "  dgemm_fp64.tflops: {}\n"
        "  \"gemm_ladder.bf*_tflops\": {fail_below: 100}\n"
        "  my_test.rate_gbs: {warn_below: 1}\n",
        "site.yaml");
    const Thresholds merged = Thresholds::built_in().overridden_by(overrides);
    const MetricRule* triad = merged.rule_for("stream.triad_gbs");
    ASSERT_NE(triad, nullptr);
    EXPECT_FALSE(triad->fraction_of_nominal);
    EXPECT_DOUBLE_EQ(*triad->fail_below, 3.0);
    EXPECT_EQ(triad->origin, "site.yaml:2");
    EXPECT_FALSE(merged.rule_for("dgemm_fp64.tflops")->judges_anything());
    EXPECT_DOUBLE_EQ(*merged.rule_for("gemm_ladder.bf16_tflops")->fail_below, 100.0);  // the user's pattern wins
    EXPECT_TRUE(merged.rule_for("gemm_ladder.fp16_tflops")->fraction_of_nominal);      // the default pattern still applies
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
              "warn_above, fraction_of_nominal, gpu_fraction_of_nominal, calibrated, fleet_outlier, above_nominal)");
    EXPECT_EQ(parse_error("metric:\n  a: {}\n"),
              "my.yaml:1: unknown key 'metric' (expected metrics, calibrated, fleet, baseline, telemetry, links, collectives, price, port_counters, gpu_health)");
    EXPECT_EQ(parse_error("metrics:\n  a:\n    fraction_of_nominal: {warn: 0.8, fial: 0.6}\n"),
              "my.yaml:3: a.fraction_of_nominal: unknown key 'fial' (expected warn, fail)");
}

TEST(Thresholds, CalibratedTakesTrueOrFalseOnly) {
    EXPECT_TRUE(Thresholds::parse("metrics:\n  lu_fp64.tflops: {calibrated: true}\n", "my.yaml")
                    .rule_for("lu_fp64.tflops")
                    ->calibrated);
    EXPECT_EQ(parse_error("metrics:\n  lu_fp64.tflops: {calibrated: 3}\n").rfind("my.yaml:2: lu_fp64.tflops.calibrated", 0),
              0u)
        << parse_error("metrics:\n  lu_fp64.tflops: {calibrated: 3}\n");
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
              "my.yaml:2: a: expected a map of fail_below, warn_below, fail_above, warn_above, fraction_of_nominal, "
              "gpu_fraction_of_nominal, calibrated, fleet_outlier, above_nominal");
    EXPECT_EQ(parse_error("metrics:\n  a: {fail_below: .nan}\n"), "my.yaml:2: a.fail_below: expected a finite number, got '.nan'");
    EXPECT_EQ(parse_error(""), "my.yaml:1: empty thresholds file (expected 'metrics:')");
    EXPECT_EQ(parse_error("- a\n- b\n"), "my.yaml:1: expected a map with the key 'metrics'");
    EXPECT_EQ(parse_error("metrics:\n  a: {}\n  a: {}\n"), "my.yaml:3: duplicate key 'a' (first at line 2)");
}

TEST(Thresholds, ADeviceFifoOrFolderIsRefusedUnreadAndExtraDocumentsToo) {
    for (const char* path : {"/dev/zero", "/tmp"}) {
        try {
            Thresholds::from_file(path);
            ADD_FAILURE() << path;
        } catch (const InputError& error) {
            EXPECT_NE(std::string(error.what()).find("cannot read the thresholds file: not a regular file"), std::string::npos)
                << error.what();
        }
    }
    EXPECT_EQ(parse_error("metrics: {}\n---\nmetrics: {}\n").rfind("my.yaml:", 0), 0u);
    EXPECT_NE(parse_error("metrics: {}\n---\nmetrics: {}\n").find("a second YAML document"), std::string::npos)
        << parse_error("metrics: {}\n---\nmetrics: {}\n");
}

TEST(Thresholds, MissingFileIsOneLine) {
    try {
        Thresholds::from_file("/nonexistent/thresholds.yaml");
        FAIL() << "no error";
    } catch (const InputError& error) {
        EXPECT_STREQ(error.what(), "/nonexistent/thresholds.yaml: cannot read the thresholds file: no such file");
    }
}

}  // namespace
}  // namespace shakedown::analysis
