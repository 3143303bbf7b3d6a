#include "analysis/export/tidy_openmetrics.hpp"

#include "core/printable_text.hpp"
#include "core/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace shakedown::analysis {
namespace {

// What each unit a declaration uses becomes (Prometheus' base units: seconds, bytes, ratio, hertz,
// watts, celsius; rates as <thing>_per_second) and the factor to it (OpenMetricsUnit: a power of ten
// and one of two). `words`: how
// metric names spell the unit ("stream.triad_gbs"), dropped from the family name where they stand
// as whole words (the last place), so the name says its unit once and truly.
//
// A unit not in the table (lanes, gen, rank, "1": dimensionless figures, and any unit a future
// declaration brings) is exported as measured: no UNIT line, no unit suffix, the name the metric's
// own. A relative error ("1") is no fraction of a whole, so it gets no _ratio.
struct OpenMetricsUnitRow {
    std::string_view unit;
    OpenMetricsUnit base;
    std::array<std::string_view, 2> words;
};

constexpr std::array<OpenMetricsUnitRow, 23> openmetrics_units{{
    {"s", {"seconds"}, {"seconds", "s"}},
    {"us", {"seconds", -6}, {"us"}},
    {"B", {"bytes"}, {"bytes"}},
    {"GiB", {"bytes", 0, 1073741824.0}, {"gib"}},
    {"GB/s", {"bytes_per_second", 9}, {"gbs"}},
    // Bits as bytes: Prometheus measures data in bytes only (node_exporter's link speed is
    // node_network_speed_bytes), so a 400 Gb/s port is 5e10 bytes per second.
    {"Gb/s", {"bytes_per_second", 9, 0.125}, {"gbps"}},
    {"Gbit/s", {"bytes_per_second", 9, 0.125}, {"gbits", "gbps"}},
    // Prometheus has no base unit for floating-point operations. An operation is a thing counted,
    // which Prometheus names by the thing, plural, with no SI prefix: the rate is flops_per_second
    // in the form of bytes_per_second, and a count of them (TFLOP per step) is flops. Not "flops"
    // alone for the rate: FLOPS reads as FLOP/s as often as the plural of FLOP, and the per-step
    // count needs the plural.
    {"TFLOP/s", {"flops_per_second", 12}, {"tflops"}},
    {"GFLOP/s", {"flops_per_second", 9}, {"gflops"}},
    {"TFLOP", {"flops", 12}, {"tflop"}},
    // Other rates: per second of the thing the name counts (cg_fp64.iterations_per_s is
    // shakedown_cg_fp64_iterations_per_second), or of the thing the unit names where the name has it
    // only as the unit (ib_perf.read_message_rate_mps is shakedown_ib_perf_read_messages_per_second).
    {"Mmsg/s", {"messages_per_second", 6}, {"message_rate_mps", "mps"}},
    {"Gcell/s", {"cells_per_second", 9}, {"gcells_per_s"}},
    {"IOPS", {"operations_per_second"}, {"iops"}},
    {"1/s", {"per_second"}, {"per_s"}},
    {"files/s", {"per_second"}, {"per_s"}},
    {"token/s", {"per_second"}, {"per_s"}},
    {"MHz", {"hertz", 6}, {"mhz"}},
    {"W", {"watts"}, {"w"}},
    {"C", {"celsius"}, {"c"}},
    // A fraction of a whole (a share of time, an efficiency) and a ratio of like quantities are a
    // Prometheus ratio; a percentage is one too, /100.
    {"fraction", {"ratio"}, {"fraction"}},
    {"ratio", {"ratio"}, {"ratio"}},
    {"%", {"ratio", -2}, {"pct", "percent"}},
    // A count of things has no unit: the name says what is counted (topology.downtrained_links_count
    // is shakedown_topology_downtrained_links). Not _count, which OpenMetrics keeps for a histogram's
    // or summary's sample count (promtool's lint refuses it on a gauge).
    {"count", {""}, {"count"}},
}};

const OpenMetricsUnitRow* openmetrics_unit_row(std::string_view unit) {
    for (const OpenMetricsUnitRow& row : openmetrics_units)
        if (row.unit == unit) return &row;
    return nullptr;
}

// The words of a name part: every character outside [a-zA-Z0-9] a separator ('.', '-', '/', ':',
// invalid UTF-8 ...), so the result is a valid metric name piece. Colons too: Prometheus keeps them
// for recording rules, never an exporter's names.
std::vector<std::string> openmetrics_words(std::string_view text) {
    std::vector<std::string> words;
    std::string word;
    for (char c : text) {
        const bool kept = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (kept) word += c;
        else if (!word.empty()) words.push_back(std::exchange(word, {}));
    }
    if (!word.empty()) words.push_back(std::move(word));
    return words;
}

// Drops the last whole-word occurrence of `spelled` ("message_rate_mps": three words) from `words`.
bool drop_unit_words(std::vector<std::string>& words, std::string_view spelled) {
    const std::vector<std::string> unit_words = openmetrics_words(spelled);
    if (unit_words.empty() || unit_words.size() > words.size()) return false;
    for (std::size_t at = words.size() - unit_words.size() + 1; at-- > 0;)
        if (std::equal(unit_words.begin(), unit_words.end(), words.begin() + static_cast<std::ptrdiff_t>(at))) {
            words.erase(words.begin() + static_cast<std::ptrdiff_t>(at),
                        words.begin() + static_cast<std::ptrdiff_t>(at + unit_words.size()));
            return true;
        }
    return false;
}

// A family name as a stem ("shakedown_stream_triad") and its unit suffix ("_bytes_per_second", or
// ""), so a second family of the same stem is told apart before the suffix, which OpenMetrics
// wants last when there is a UNIT line.
struct OpenMetricsName {
    std::string stem;
    std::string suffix;
};

OpenMetricsName openmetrics_name(std::string_view metric, std::string_view unit) {
    // The test's key (before the first '.') as it is; the unit's spelling dropped from the rest only.
    const std::size_t dot = metric.find('.');
    std::vector<std::string> words = openmetrics_words(dot == std::string_view::npos ? "" : metric.substr(0, dot));
    std::vector<std::string> rest = openmetrics_words(dot == std::string_view::npos ? metric : metric.substr(dot + 1));
    const OpenMetricsUnitRow* row = openmetrics_unit_row(unit);
    if (row != nullptr)
        for (std::string_view spelled : row->words)
            if (!spelled.empty() && drop_unit_words(rest, spelled)) break;
    words.insert(words.end(), rest.begin(), rest.end());
    OpenMetricsName name{"shakedown", row != nullptr && !row->base.base.empty() ? fmt::format("_{}", row->base.base) : ""};
    for (const std::string& word : words) name.stem += "_" + word;
    return name;
}

// `stem` + `suffix`, or where another family has that name already, stem_2 + suffix, stem_3 + ...:
// deterministic, as the families are named in the order of their metrics' names.
std::string claim_openmetrics_name(std::set<std::string>& taken, const std::string& stem, const std::string& suffix) {
    std::string name = stem + suffix;
    for (int n = 2; taken.contains(name); ++n) name = fmt::format("{}_{}{}", stem, n, suffix);
    taken.insert(name);
    return name;
}

// Text made printable (invalid UTF-8 and controls as \xNN: the format wants UTF-8), then backslash,
// double quote and line feed escaped as the OpenMetrics text format says (label values and HELP alike).
std::string openmetrics_escaped(std::string_view raw) {
    std::string escaped;
    for (char c : escape_control(raw)) {
        if (c == '\\') escaped += "\\\\";
        else if (c == '"') escaped += "\\\"";
        else if (c == '\n') escaped += "\\n";
        else escaped += c;
    }
    return escaped;
}

// OpenMetrics numbers: NaN, +Inf, -Inf, else the shortest round-trip form.
std::string openmetrics_number(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
    return fmt::format("{}", value);
}

// What a sample is of: who measured it and in which test. Not the run (a new series every run),
// not the metric or its unit (the family's name says both).
std::string openmetrics_sample_labels(const TidyRow& row) {
    return fmt::format(R"(node="{}",rank="{}",gpu_uuid="{}",test="{}")", openmetrics_escaped(row.node), row.rank,
                       openmetrics_escaped(row.gpu_uuid), openmetrics_escaped(row.test));
}

int openmetrics_level_number(Level level) {
    switch (level) {
        case Level::pass: return 0;
        case Level::warn: return 1;
        case Level::fail: return 2;
    }
    return 2;
}

// One shakedown metric (name and unit, as the rows give them): its families and its rows.
struct OpenMetricsMetric {
    std::string_view test;
    OpenMetricsUnit unit;
    OpenMetricsName name;
    std::string family;
    std::string nominal_family;  // "" when no row has a nominal
    std::vector<std::size_t> rows;
};

void openmetrics_header(std::string& text, std::string_view family, std::string_view base, std::string_view help) {
    text += fmt::format("# TYPE {} gauge\n", family);
    if (!base.empty()) text += fmt::format("# UNIT {} {}\n", family, base);
    text += fmt::format("# HELP {} {}\n", family, openmetrics_escaped(help));
}

}  // namespace

double OpenMetricsUnit::to_base(double value) const {
    if (decimal_exponent == 0 || !std::isfinite(value) || value == 0) return value * binary_factor;
    // The shortest form that reads back as `value` ("4.1e+00"), its exponent moved, read back.
    std::array<char, 64> digits{};
    const auto written = std::to_chars(digits.data(), digits.data() + digits.size(), value, std::chars_format::scientific);
    const std::string_view text(digits.data(), static_cast<std::size_t>(written.ptr - digits.data()));
    const std::size_t e = text.find('e');
    int exponent = 0;
    std::from_chars(text.data() + e + (text[e + 1] == '+' ? 2 : 1), text.data() + text.size(), exponent);
    const std::string moved = fmt::format("{}e{}", text.substr(0, e), exponent + decimal_exponent);
    double scaled = 0;
    if (std::from_chars(moved.data(), moved.data() + moved.size(), scaled).ec != std::errc())
        return value * std::pow(10.0, decimal_exponent) * binary_factor;  // beyond a double: +-Inf or 0, as the product
    return scaled * binary_factor;
}

OpenMetricsUnit openmetrics_unit(std::string_view unit) {
    const OpenMetricsUnitRow* row = openmetrics_unit_row(unit);
    return row == nullptr ? OpenMetricsUnit{} : row->base;
}

std::string openmetrics_family_name(std::string_view metric, std::string_view unit) {
    const OpenMetricsName name = openmetrics_name(metric, unit);
    return name.stem + name.suffix;
}

std::string tidy_openmetrics(const std::vector<TidyRow>& rows, const OpenMetricsRun& run) {
    // The metrics in the order of their names (then units): the order of the families, and which
    // of two metrics whose names come out the same keeps the plain name.
    std::map<std::pair<std::string_view, std::string_view>, OpenMetricsMetric> metrics;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        auto [at, added] = metrics.try_emplace({rows[i].metric, rows[i].unit});
        if (added) at->second.test = rows[i].test;
        at->second.rows.push_back(i);
    }
    std::set<std::string> taken{openmetrics_run_info_family, openmetrics_level_family};
    for (auto& [key, metric] : metrics) {
        metric.unit = openmetrics_unit(key.second);
        metric.name = openmetrics_name(key.first, key.second);
        metric.family = claim_openmetrics_name(taken, metric.name.stem, metric.name.suffix);
    }
    // The nominals' names after every value's, so a metric named like another's nominal keeps its own.
    for (auto& [key, metric] : metrics)
        for (std::size_t i : metric.rows)
            if (rows[i].nominal) {
                metric.nominal_family = claim_openmetrics_name(taken, metric.name.stem + "_nominal", metric.name.suffix);
                break;
            }

    std::string text;
    // The run once: an info metric as node_exporter writes them (node_uname_info, node_os_info), a
    // gauge of value 1 named *_info. Not OpenMetrics' own `info` type: node_exporter's textfile
    // collector reads the files with the Prometheus text parser (expfmt.TextParser), which refuses a
    // type it does not know ("unknown metric type \"info\"") and with it the whole file.
    openmetrics_header(text, openmetrics_run_info_family, "",
                       "The run these figures are of (run.json): its id, its UUID and the shakedown that "
                       "measured it; always 1.");
    text += fmt::format("{}{{run_id=\"{}\",run_uuid=\"{}\",shakedown_version=\"{}\"}} 1\n", openmetrics_run_info_family,
                        openmetrics_escaped(run.run_id), openmetrics_escaped(run.run_uuid),
                        openmetrics_escaped(run.shakedown_version));

    for (const auto& [key, metric] : metrics) {
        const auto [name, unit] = key;
        // The declaration's description; the test's key from the row, else the name's first part.
        const std::string_view test_key = metric.test.empty() ? name.substr(0, name.find('.')) : metric.test;
        const MetricSpec* declared = Registry::instance().declaration(test_key, name);
        const std::string measured = unit.empty() ? std::string(name) : fmt::format("{}, measured in {}", name, unit);
        openmetrics_header(text, metric.family, metric.unit.base,
                           declared != nullptr && !declared->description.empty()
                               ? fmt::format("{} ({})", declared->description, measured)
                               : fmt::format("What {} measured ({}).", test_key, measured));
        for (std::size_t i : metric.rows)
            text += fmt::format("{}{{{}}} {}\n", metric.family, openmetrics_sample_labels(rows[i]),
                                openmetrics_number(metric.unit.to_base(rows[i].value)));
        if (metric.nominal_family.empty()) continue;
        const bool tolerance = declared != nullptr && declared->nominal_role == NominalRole::tolerance;
        openmetrics_header(text, metric.nominal_family, metric.unit.base,
                           tolerance ? fmt::format("The largest {} accepted (a tolerance), in the same unit.", name)
                                     : fmt::format("What the hardware should deliver for {}, in the same unit.", name));
        for (std::size_t i : metric.rows)
            if (rows[i].nominal)
                text += fmt::format("{}{{{}}} {}\n", metric.nominal_family, openmetrics_sample_labels(rows[i]),
                                    openmetrics_number(metric.unit.to_base(*rows[i].nominal)));
    }

    // The levels in one family, the metric's name a label: a level means the same for every metric
    // (0 pass, 1 warn, 2 fail, no unit), so max by (node) (shakedown_metric_level) is a node's worst
    // and count(shakedown_metric_level == 2) its failing figures, one query for an alert. Prometheus'
    // advice against a metric's name in a label is about values of different units in one family,
    // whose sum or mean means nothing; per-metric level families would double the families and need
    // a regular expression on __name__ for "any figure failed".
    openmetrics_header(text, openmetrics_level_family, "",
                       "How shakedown-analyze judged the figure named by the label metric: 0 pass, 1 warn, 2 fail; "
                       "no sample: not judged.");
    for (const TidyRow& row : rows)
        // A figure no rule compared has no level sample: a 0 would read as a pass.
        if (row.judged)
            text += fmt::format("{}{{{},metric=\"{}\"}} {}\n", openmetrics_level_family, openmetrics_sample_labels(row),
                                openmetrics_escaped(row.metric), openmetrics_level_number(row.level));
    text += "# EOF\n";
    return text;
}

}  // namespace shakedown::analysis
