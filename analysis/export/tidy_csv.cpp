#include "analysis/export/tidy_csv.hpp"

#include "core/printable_text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

namespace shakedown::analysis {
namespace {

// Text from traces made printable first (invalid UTF-8 and controls as \xNN), then quoted when
// it needs to be.
std::string field(std::string_view raw) {
    const std::string text = escape_control(raw);
    if (text.find_first_of(",\"") == std::string::npos) return text;
    std::string quoted = "\"";
    for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

std::string csv_number(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "Inf" : "-Inf";
    return fmt::format("{}", value);
}

}  // namespace

std::string tidy_csv(const std::vector<TidyRow>& rows) {
    std::string csv = fmt::format("{}\n", fmt::join(tidy_columns, ","));
    for (const TidyRow& row : rows)
        csv += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", field(row.run), field(row.node), row.rank,
                           field(row.gpu_uuid), field(row.test), field(row.metric), field(row.unit), csv_number(row.value),
                           row.nominal ? csv_number(*row.nominal) : "", level_text(row));
    return csv;
}

}  // namespace shakedown::analysis
