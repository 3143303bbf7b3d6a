#include "analysis/export/tidy_openmetrics.hpp"

#include "core/printable_text.hpp"

#include <fmt/format.h>

#include <cmath>

namespace shakedown::analysis {
namespace {

// A label value: made printable (invalid UTF-8 and controls as \xNN: the format wants UTF-8),
// then backslash, double quote and line feed escaped as the OpenMetrics text format says.
std::string label_value(std::string_view raw) {
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

// The identity columns of tidy_columns as labels (value, nominal and level are the samples).
std::string labels(const TidyRow& row) {
    return fmt::format(R"({{run="{}",node="{}",rank="{}",gpu_uuid="{}",test="{}",metric="{}",unit="{}"}})",
                       label_value(row.run), label_value(row.node), row.rank, label_value(row.gpu_uuid),
                       label_value(row.test), label_value(row.metric), label_value(row.unit));
}

int level_number(Level level) {
    switch (level) {
        case Level::pass: return 0;
        case Level::warn: return 1;
        case Level::fail: return 2;
    }
    return 2;
}

}  // namespace

std::string tidy_openmetrics(const std::vector<TidyRow>& rows) {
    std::string text;
    auto family = [&](const char* name, const char* help) {
        text += fmt::format("# TYPE {} gauge\n# HELP {} {}\n", name, name, help);
    };
    // Each family's samples together: the format wants a family's lines in one block.
    family(openmetrics_value_family, "What a test measured on a rank, in the unit the unit label names.");
    for (const TidyRow& row : rows) text += fmt::format("{}{} {}\n", openmetrics_value_family, labels(row), openmetrics_number(row.value));
    family(openmetrics_nominal_family, "What the hardware should deliver for that figure, in the same unit.");
    for (const TidyRow& row : rows)
        if (row.nominal) text += fmt::format("{}{} {}\n", openmetrics_nominal_family, labels(row), openmetrics_number(*row.nominal));
    // A figure no rule compared has no level sample: a 0 would read as a pass.
    family(openmetrics_level_family, "How shakedown-analyze judged the figure: 0 pass, 1 warn, 2 fail; no sample: not judged.");
    for (const TidyRow& row : rows)
        if (row.judged) text += fmt::format("{}{} {}\n", openmetrics_level_family, labels(row), level_number(row.level));
    text += "# EOF\n";
    return text;
}

}  // namespace shakedown::analysis
