// The tidy rows as CSV: a header of tidy_columns, then one line per row, LF line ends. Text is
// made printable first (controls and invalid UTF-8 as \xNN, so no field holds a line break), a
// field with a comma or a quote is quoted as RFC 4180 says (quotes doubled); numbers in their
// shortest round-trip form, NaN and Inf as such, an absent nominal empty.
#pragma once

#include "analysis/export/tidy_rows.hpp"

#include <string>
#include <vector>

namespace shakedown::analysis {

std::string tidy_csv(const std::vector<TidyRow>& rows);

}  // namespace shakedown::analysis
