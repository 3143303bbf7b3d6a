// The export writers on rows with hostile text (quotes, backslashes, commas, a line feed, invalid
// UTF-8) and non-finite numbers, read back by the parsers their consumers use: Python's csv
// module and Prometheus' own OpenMetrics parser (Debian's python3 with python3-prometheus-client;
// a missing module fails the test).
#include "analysis/export/tidy_csv.hpp"
#include "analysis/export/tidy_openmetrics.hpp"
#include "analysis_fixtures.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>

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

TEST(TidyExport, OpenMetricsLabelsAndSpecialValuesParseWithPrometheusParser) {
    TempDir temp;
    const std::string text = tidy_openmetrics(hostile_rows());
    ASSERT_TRUE(text.ends_with("# EOF\n"));
    const nlohmann::json samples = python(temp, R"(import json, math, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
with open(sys.argv[1], encoding="utf-8") as f:
    families = list(text_string_to_metric_families(f.read()))
print(json.dumps([[s.name, s.labels, repr(s.value)] for family in families for s in family.samples]))
)", text);
    ASSERT_TRUE(samples.is_array()) << text;
    // values, nominals (2 rows have one), levels (2 rows were judged)
    ASSERT_EQ(samples.size(), 3u + 2u + 2u) << samples.dump(1);
    EXPECT_EQ(samples[0][0], openmetrics_value_family);
    EXPECT_EQ(samples[0][1]["node"], "rack \"7\", slot\\b\\x0ax");  // escaped and unescaped by the parser
    EXPECT_EQ(samples[0][1]["gpu_uuid"], "GPU-\\xff");
    EXPECT_EQ(samples[0][1]["rank"], "3");
    EXPECT_EQ(samples[0][2], "4.1");
    EXPECT_EQ(samples[1][2], "nan");
    EXPECT_EQ(samples[2][2], "inf");
    EXPECT_EQ(samples[3][0], openmetrics_nominal_family);
    EXPECT_EQ(samples[3][2], "7.9");
    EXPECT_EQ(samples[4][2], "1e-07");
    EXPECT_EQ(samples[5][0], openmetrics_level_family);
    EXPECT_EQ(samples[5][2], "2");  // the parser reads an integer as int
    EXPECT_EQ(samples[6][2], "1");
}

TEST(TidyExport, AnUnescapedQuoteIsRejectedByTheParser) {
    // The check above means something only if the parser refuses what a careless writer emits.
    TempDir temp;
    std::string text = tidy_openmetrics(hostile_rows());
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
