// The export writers on rows with hostile text (quotes, backslashes, commas, a line feed, invalid
// UTF-8) and non-finite numbers, read back by the parsers their consumers use: Python's csv
// module and Prometheus' own OpenMetrics parser (Debian's python3 with python3-prometheus-client;
// a missing module fails the test).
#include "analysis/export/tidy_csv.hpp"
#include "analysis/export/tidy_openmetrics.hpp"
#include "analysis_fixtures.hpp"
#include "core/registry.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace shakedown::analysis {
namespace {

using testing::read_text;
using testing::TempDir;

std::vector<TidyRow> hostile_rows() {
    TidyRow quoted{"run-1", "rack \"7\", slot\\b\nx", 3, "GPU-\xff", "stream", "stream.triad_gbs", "GB/s", 4.1, 7.9,
                   Level::fail};
    quoted.judged = true;
    // A figure no rule compared: "not_judged" in the CSV, no level sample in OpenMetrics.
    TidyRow special{"run-1", "node0001", 4, "", "mpi_pingpong", "mpi_pingpong.latency_us", "us",
                    std::numeric_limits<double>::quiet_NaN(), std::nullopt, Level::pass};
    TidyRow infinite = special;
    infinite.metric = "mpi_pingpong.bandwidth_gbs";
    infinite.unit = "GB/s";
    infinite.value = std::numeric_limits<double>::infinity();
    infinite.nominal = 1e-7;
    infinite.level = Level::warn;
    infinite.judged = true;
    return {quoted, special, infinite};
}

// Runs a Python program over `input` and returns what it printed (JSON).
nlohmann::json python(const TempDir& temp, const std::string& program, const std::string& input) {
    const auto script = temp.path() / "read.py";
    const auto data = temp.path() / "input.txt";
    const auto out = temp.path() / "out.json";
    std::ofstream(script) << program;
    std::ofstream(data, std::ios::binary) << input;
    const std::string command = std::string(SHAKEDOWN_SYSTEM_PYTHON3) + " '" + script.string() + "' '" + data.string() +
                                "' >'" + out.string() + "' 2>&1";
    const int status = std::system(command.c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_text(out);
    return nlohmann::json::parse(read_text(out), nullptr, /*allow_exceptions=*/false);
}

TEST(TidyExport, CsvWithQuotesCommasAndLineBreaksReadsBackWithPythonsCsv) {
    TempDir temp;
    const nlohmann::json rows = python(temp, R"(import csv, json, sys
with open(sys.argv[1], encoding="utf-8", newline="") as f:
    print(json.dumps(list(csv.reader(f))))
)", tidy_csv(hostile_rows()));
    ASSERT_TRUE(rows.is_array());
    ASSERT_EQ(rows.size(), 4u) << rows.dump();
    EXPECT_EQ(rows[0], nlohmann::json(std::vector<std::string>(tidy_columns.begin(), tidy_columns.end())));
    // Quotes and the comma kept inside one field; the line feed and the invalid byte shown as \xNN.
    EXPECT_EQ(rows[1][1], "rack \"7\", slot\\b\\x0ax");
    EXPECT_EQ(rows[1][3], "GPU-\\xff");
    EXPECT_EQ(rows[1][7], "4.1");
    EXPECT_EQ(rows[1][8], "7.9");
    EXPECT_EQ(rows[1][9], "fail");
    EXPECT_EQ(rows[2][7], "NaN");
    EXPECT_EQ(rows[2][8], "") << "no nominal: empty";
    EXPECT_EQ(rows[2][9], "not_judged");
    EXPECT_EQ(rows[3][7], "Inf");
    EXPECT_EQ(rows[3][8], "1e-07");
    EXPECT_EQ(rows[3][9], "warn");
}

// The OpenMetrics text read back by Prometheus' parser: every family (name, type, unit, help) with
// its samples (name, labels, repr of the value).
nlohmann::json openmetrics_families(const TempDir& temp, const std::string& text) {
    return python(temp, R"(import json, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
with open(sys.argv[1], encoding="utf-8") as f:
    families = list(text_string_to_metric_families(f.read()))
print(json.dumps([{"name": f.name, "type": f.type, "unit": f.unit, "help": f.documentation,
                   "samples": [[s.name, s.labels, repr(s.value)] for s in f.samples]} for f in families]))
)",
                  text);
}

const nlohmann::json* find_family(const nlohmann::json& families, const std::string& name) {
    for (const nlohmann::json& family : families)
        if (family["name"] == name) return &family;
    return nullptr;
}

const OpenMetricsRun hostile_run{"run-1", "0b6f1f9e-uuid", "0.1.0 \"dev\""};

TEST(TidyExport, OpenMetricsFamiliesPerMetricInBaseUnitsParseWithPrometheusParser) {
    TempDir temp;
    const std::string text = tidy_openmetrics(hostile_rows(), hostile_run);
    ASSERT_TRUE(text.ends_with("# EOF\n"));
    const nlohmann::json families = openmetrics_families(temp, text);
    ASSERT_TRUE(families.is_array()) << text;

    // GB/s in bytes per second, its own family with UNIT and the declaration's description as HELP.
    const nlohmann::json* triad = find_family(families, "shakedown_stream_triad_bytes_per_second");
    ASSERT_NE(triad, nullptr) << text;
    EXPECT_EQ((*triad)["type"], "gauge");
    EXPECT_EQ((*triad)["unit"], "bytes_per_second");
    const MetricSpec* declared = Registry::instance().declaration("stream", "stream.triad_gbs");
    ASSERT_NE(declared, nullptr);
    EXPECT_EQ((*triad)["help"], declared->description + " (stream.triad_gbs, measured in GB/s)");
    ASSERT_EQ((*triad)["samples"].size(), 1u);
    const nlohmann::json& sample = (*triad)["samples"][0];
    EXPECT_EQ(sample[0], "shakedown_stream_triad_bytes_per_second");
    EXPECT_EQ(sample[1]["node"], "rack \"7\", slot\\b\\x0ax");  // escaped and unescaped by the parser
    EXPECT_EQ(sample[1]["gpu_uuid"], "GPU-\\xff");
    EXPECT_EQ(sample[1]["rank"], "3");
    EXPECT_EQ(sample[1]["test"], "stream");
    EXPECT_EQ(sample[2], "4100000000");  // 4.1 x 1e9 in binary would be 4099999999.9999995
    const nlohmann::json* triad_nominal = find_family(families, "shakedown_stream_triad_nominal_bytes_per_second");
    ASSERT_NE(triad_nominal, nullptr) << text;
    EXPECT_EQ((*triad_nominal)["unit"], "bytes_per_second");
    ASSERT_EQ((*triad_nominal)["samples"].size(), 1u);
    EXPECT_EQ((*triad_nominal)["samples"][0][2], "7900000000");

    // Non-finite values as such; a nominal of 1e-7 GB/s is 100 bytes per second.
    const nlohmann::json* latency = find_family(families, "shakedown_mpi_pingpong_latency_seconds");
    ASSERT_NE(latency, nullptr) << text;
    EXPECT_EQ((*latency)["unit"], "seconds");
    EXPECT_EQ((*latency)["samples"][0][2], "nan");
    EXPECT_EQ(find_family(families, "shakedown_mpi_pingpong_latency_nominal_seconds"), nullptr) << "no row has a nominal";
    const nlohmann::json* bandwidth = find_family(families, "shakedown_mpi_pingpong_bandwidth_bytes_per_second");
    ASSERT_NE(bandwidth, nullptr) << text;
    EXPECT_EQ((*bandwidth)["samples"][0][2], "inf");
    EXPECT_EQ((*find_family(families, "shakedown_mpi_pingpong_bandwidth_nominal_bytes_per_second"))["samples"][0][2], "100");

    // The run once, as an info gauge; no sample carries the run, and only the levels name the metric.
    const nlohmann::json* info = find_family(families, openmetrics_run_info_family);
    ASSERT_NE(info, nullptr) << text;
    EXPECT_EQ((*info)["type"], "gauge");
    ASSERT_EQ((*info)["samples"].size(), 1u);
    EXPECT_EQ((*info)["samples"][0][1],
              nlohmann::json({{"run_id", "run-1"}, {"run_uuid", "0b6f1f9e-uuid"}, {"shakedown_version", "0.1.0 \"dev\""}}));
    EXPECT_EQ((*info)["samples"][0][2], "1");
    for (const nlohmann::json& family : families)
        for (const nlohmann::json& each : family["samples"]) {
            EXPECT_FALSE(each[1].contains("run")) << each.dump();
            EXPECT_FALSE(each[1].contains("unit")) << each.dump();
            EXPECT_EQ(each[1].contains("metric"), family["name"] == openmetrics_level_family) << each.dump();
        }

    // The levels in one family, named by the metric label; the figure no rule compared has none.
    const nlohmann::json* levels = find_family(families, openmetrics_level_family);
    ASSERT_NE(levels, nullptr) << text;
    ASSERT_EQ((*levels)["samples"].size(), 2u) << levels->dump(1);
    EXPECT_EQ((*levels)["samples"][0][1]["metric"], "stream.triad_gbs");
    EXPECT_EQ((*levels)["samples"][0][2], "2");  // the parser reads an integer as int
    EXPECT_EQ((*levels)["samples"][1][1]["metric"], "mpi_pingpong.bandwidth_gbs");
    EXPECT_EQ((*levels)["samples"][1][2], "1");
    // info, triad and its nominal, latency, bandwidth and its nominal, levels
    EXPECT_EQ(families.size(), 1u + 2u + 1u + 2u + 1u);
}

TEST(TidyExport, OpenMetricsMicrosecondsAreSecondsAndAnUnknownUnitIsKeptAsMeasured) {
    TempDir temp;
    TidyRow latency{"run-1", "node0001", 0, "", "mpi", "mpi.latency_us", "us", 12.3, std::nullopt, Level::pass};
    TidyRow odd = latency;
    odd.test = "odd";
    odd.metric = "odd.reach_furlongs";
    odd.unit = "furlong";  // in no table: as measured, no UNIT, no unit suffix
    odd.value = 3.5;
    odd.nominal = 4.0;
    TidyRow counted = odd;
    counted.metric = "odd.wrong_words_count";  // a count: no unit, and no _count (a histogram's)
    counted.unit = "count";
    counted.value = 2;
    counted.nominal.reset();
    const std::string text = tidy_openmetrics({latency, odd, counted}, hostile_run);
    // 12.3 us with the decimal point moved: 1.23e-05 s, the shortest form that reads back as it.
    const std::string sample = R"(shakedown_mpi_latency_seconds{node="node0001",rank="0",gpu_uuid="",test="mpi"})";
    EXPECT_NE(text.find("\n" + sample + " 1.23e-05\n"), std::string::npos) << text;
    EXPECT_NE(text.find("# UNIT shakedown_mpi_latency_seconds seconds\n"), std::string::npos) << text;
    EXPECT_EQ(text.find("# UNIT shakedown_odd"), std::string::npos) << text;
    const nlohmann::json families = openmetrics_families(temp, text);
    ASSERT_TRUE(families.is_array()) << text;
    const nlohmann::json* reach = find_family(families, "shakedown_odd_reach_furlongs");
    ASSERT_NE(reach, nullptr) << text;
    EXPECT_EQ((*reach)["unit"], "");
    EXPECT_EQ((*reach)["samples"][0][2], "3.5");
    EXPECT_EQ((*reach)["help"], "What odd measured (odd.reach_furlongs, measured in furlong).");
    ASSERT_NE(find_family(families, "shakedown_odd_reach_furlongs_nominal"), nullptr) << text;
    EXPECT_EQ((*find_family(families, "shakedown_odd_reach_furlongs_nominal"))["samples"][0][2], "4");
    const nlohmann::json* words = find_family(families, "shakedown_odd_wrong_words");
    ASSERT_NE(words, nullptr) << text;
    EXPECT_EQ((*words)["unit"], "");
    EXPECT_EQ((*words)["samples"][0][2], "2");

    EXPECT_EQ(openmetrics_unit("furlong").base, "");
    EXPECT_EQ(openmetrics_unit("GB/s").base, "bytes_per_second");
    EXPECT_EQ(openmetrics_unit("Gb/s").to_base(400), 5e10);
    EXPECT_EQ(openmetrics_unit("TFLOP/s").to_base(2.5), 2.5e12);
    EXPECT_EQ(openmetrics_unit("%").to_base(-3), -0.03);
    // The unit's own word dropped where it stands, the base unit last.
    const std::vector<std::array<std::string, 3>> names{
        {"tcp_bandwidth.send_gbits_min", "Gbit/s", "shakedown_tcp_bandwidth_send_min_bytes_per_second"},
        {"dgemm_fp64.tflops", "TFLOP/s", "shakedown_dgemm_fp64_flops_per_second"},
        {"cg_fp64.bandwidth_bound_fraction", "fraction", "shakedown_cg_fp64_bandwidth_bound_ratio"},
        {"sdc_dgemm.seconds", "s", "shakedown_sdc_dgemm_seconds"},
        {"cg_fp64.iterations_per_s", "1/s", "shakedown_cg_fp64_iterations_per_second"},
        {"topology.downtrained_links_count", "count", "shakedown_topology_downtrained_links"}};
    for (const auto& [metric, unit, family] : names) EXPECT_EQ(openmetrics_family_name(metric, unit), family);
}

// Hostile metric names: two that come out as one name, one that takes a fixed family's name, and
// one with a quote, a backslash and a line feed, which the name drops and HELP and the level's
// metric label escape.
std::vector<TidyRow> colliding_rows() {
    TidyRow dotted{"run-1", "node0001", 0, "", "mpi", "mpi.coll_x", "us", 1.0, std::nullopt, Level::pass};
    dotted.judged = true;
    TidyRow underscored = dotted;
    underscored.test = "mpi_coll";
    underscored.metric = "mpi_coll.x";
    underscored.value = 2.0;
    TidyRow level = dotted;
    level.test = "metric";
    level.metric = "metric.level";
    level.unit = "count";
    level.value = 3.0;
    TidyRow quoted = level;
    quoted.test = "odd";
    quoted.metric = "odd.a\"b\\c\nd";
    quoted.value = 4.0;
    return {underscored, quoted, level, dotted};
}

TEST(TidyExport, OpenMetricsNamesThatCollideAreToldApartDeterministically) {
    TempDir temp;
    std::vector<TidyRow> rows = colliding_rows();
    const std::string text = tidy_openmetrics(rows, hostile_run);
    auto family_lines = [](const std::string& exported) {
        std::vector<std::string> lines;
        for (std::size_t at = exported.find("# TYPE "); at != std::string::npos; at = exported.find("# TYPE ", at + 1))
            lines.push_back(exported.substr(at, exported.find('\n', at) - at));
        return lines;
    };
    std::reverse(rows.begin(), rows.end());
    EXPECT_EQ(family_lines(tidy_openmetrics(rows, hostile_run)), family_lines(text)) << "the names depend on no row order";
    const nlohmann::json families = openmetrics_families(temp, text);  // refuses a family named twice
    ASSERT_TRUE(families.is_array()) << text;
    auto value_of = [&](const std::string& name) {
        const nlohmann::json* family = find_family(families, name);
        return family == nullptr || (*family)["samples"].empty() ? nlohmann::json() : (*family)["samples"][0][2];
    };
    // "mpi.coll_x" sorts before "mpi_coll.x" and keeps the plain name; the other is numbered before the unit.
    EXPECT_EQ(value_of("shakedown_mpi_coll_x_seconds"), "1e-06") << text;
    EXPECT_EQ(value_of("shakedown_mpi_coll_x_2_seconds"), "2e-06") << text;
    EXPECT_EQ((*find_family(families, "shakedown_mpi_coll_x_2_seconds"))["unit"], "seconds");
    // The fixed families keep their names.
    EXPECT_EQ(value_of("shakedown_metric_level_2"), "3") << text;
    ASSERT_NE(find_family(families, openmetrics_level_family), nullptr);
    EXPECT_EQ((*find_family(families, openmetrics_level_family))["samples"].size(), 4u);
    // The quoted name: words only in the family name, escaped where it is text.
    const nlohmann::json* quoted = find_family(families, "shakedown_odd_a_b_c_d");
    ASSERT_NE(quoted, nullptr) << text;
    EXPECT_EQ((*quoted)["help"], "What odd measured (odd.a\"b\\c\\x0ad, measured in count).");
    EXPECT_NE(text.find("metric=\"odd.a\\\"b\\\\c\\\\x0ad\"} 0\n"), std::string::npos) << text;
}

TEST(TidyExport, EveryDeclaredMetricHasAFamilyOfItsOwn) {
    // The declarations as they are: no two metrics (nor a metric and another's nominal) share a
    // name, so none is numbered, and the whole parses.
    std::vector<std::pair<std::string, std::string>> declared;
    for (const auto& test : Registry::instance().tests())
        for (const MetricSpec& metric : test->spec().metrics)
            for (const std::string& name : metric.names()) declared.emplace_back(name, metric.unit);
    ASSERT_GT(declared.size(), 100u);
    std::vector<TidyRow> rows;
    for (const auto& [name, unit] : declared)
        rows.push_back(TidyRow{"run-1", "node0001", 0, "", std::string_view(name).substr(0, name.find('.')), name, unit, 1.0,
                               2.0, Level::pass});
    const std::string text = tidy_openmetrics(rows, hostile_run);
    std::set<std::string> names;
    for (const auto& [name, unit] : declared) {
        const std::string family = openmetrics_family_name(name, unit);
        const std::string_view base = openmetrics_unit(unit).base;
        const std::string stem = base.empty() ? family : family.substr(0, family.size() - base.size() - 1);
        const std::string nominal = base.empty() ? stem + "_nominal" : fmt::format("{}_nominal_{}", stem, base);
        EXPECT_TRUE(names.insert(family).second) << name << " shares " << family;
        EXPECT_TRUE(names.insert(nominal).second) << name << "'s nominal shares " << nominal;
        EXPECT_NE(text.find(fmt::format("# TYPE {} gauge\n", family)), std::string::npos) << name << ": " << family;
        EXPECT_NE(text.find(fmt::format("# TYPE {} gauge\n", nominal)), std::string::npos) << name << ": " << nominal;
        EXPECT_EQ(family.find("__"), std::string::npos) << family;
        // The suffixes OpenMetrics gives the samples of other types (a histogram's _count, ...).
        for (const char* reserved : {"_count", "_sum", "_bucket", "_total", "_created", "_info", "_gcount", "_gsum"})
            EXPECT_FALSE(family.ends_with(reserved) || nominal.ends_with(reserved)) << family;
    }
    TempDir temp;
    const nlohmann::json families = openmetrics_families(temp, text);
    ASSERT_TRUE(families.is_array()) << text;
    EXPECT_EQ(families.size(), 2 * declared.size() + 2u);  // + the run's info and the levels (no sample: none judged)
}

TEST(TidyExport, AnUnescapedQuoteIsRejectedByTheParser) {
    // The check above means something only if the parser refuses what a careless writer emits.
    TempDir temp;
    std::string text = tidy_openmetrics(hostile_rows(), hostile_run);
    const std::string escaped = "rack \\\"7\\\"";
    const auto at = text.find(escaped);
    ASSERT_NE(at, std::string::npos) << text;
    text.replace(at, escaped.size(), "rack \"7\"");
    const auto script = temp.path() / "read.py";
    const auto data = temp.path() / "input.txt";
    std::ofstream(script) << "import sys\nfrom prometheus_client.openmetrics.parser import text_string_to_metric_families\n"
                             "list(text_string_to_metric_families(open(sys.argv[1]).read()))\n";
    std::ofstream(data) << text;
    const std::string command = std::string(SHAKEDOWN_SYSTEM_PYTHON3) + " '" + script.string() + "' '" + data.string() +
                                "' >/dev/null 2>&1";
    const int status = std::system(command.c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << "the parser accepted an unescaped quote";
}

}  // namespace
}  // namespace shakedown::analysis
