#include "core/result.hpp"

#include <array>
#include <stdexcept>
#include <utility>

namespace shakedown {
namespace {

template <typename Enum, std::size_t N>
std::optional<Enum> lookup(const std::array<std::pair<Enum, std::string_view>, N>& table,
                           std::string_view text) {
    for (const auto& [value, name] : table)
        if (name == text) return value;
    return std::nullopt;
}

template <typename Enum, std::size_t N>
std::string_view name_of(const std::array<std::pair<Enum, std::string_view>, N>& table,
                         Enum value) {
    for (const auto& [candidate, name] : table)
        if (candidate == value) return name;
    return "unknown";
}

constexpr std::array<std::pair<Status, std::string_view>, 4> status_names{{
    {Status::pass, "pass"}, {Status::fail, "fail"}, {Status::waived, "waived"}, {Status::error, "error"}}};
constexpr std::array<std::pair<Better, std::string_view>, 2> better_names{{
    {Better::higher, "higher"}, {Better::lower, "lower"}}};
constexpr std::array<std::pair<Severity, std::string_view>, 3> severity_names{{
    {Severity::info, "info"}, {Severity::warning, "warning"}, {Severity::error, "error"}}};
constexpr std::array<std::pair<Cause, std::string_view>, 3> cause_names{{
    {Cause::hardware, "hardware"}, {Cause::configuration, "configuration"}, {Cause::software, "software"}}};

}  // namespace

std::string_view to_string(Status status) { return name_of(status_names, status); }
std::string_view to_string(Better better) { return name_of(better_names, better); }
std::string_view to_string(Severity severity) { return name_of(severity_names, severity); }
std::optional<Status> status_from_string(std::string_view text) { return lookup(status_names, text); }
std::optional<Better> better_from_string(std::string_view text) { return lookup(better_names, text); }
std::optional<Severity> severity_from_string(std::string_view text) { return lookup(severity_names, text); }
std::string_view to_string(Cause cause) { return name_of(cause_names, cause); }
std::optional<Cause> cause_from_string(std::string_view text) { return lookup(cause_names, text); }

std::optional<Cause> cause_of(const TestResult& result) {
    if (result.status == Status::pass || result.status == Status::waived) return std::nullopt;
    if (result.cause) return result.cause;
    if (result.status == Status::fail) return Cause::hardware;
    return result.bad_input ? Cause::configuration : Cause::software;
}

std::optional<double> Metric::usable_fraction() const {
    if (!nominal || *nominal <= 0.0) return std::nullopt;
    return better == Better::higher ? value / *nominal : *nominal / value;
}

SampleTable::SampleTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

void SampleTable::add_row(std::vector<double> row) {
    if (row.size() != columns_.size())
        throw std::invalid_argument("sample row has " + std::to_string(row.size()) +
                                    " values for " + std::to_string(columns_.size()) + " columns");
    rows_.push_back(std::move(row));
}

void SampleTable::append(const SampleTable& other) {
    if (columns_.empty() && rows_.empty()) columns_ = other.columns_;
    if (other.columns_.size() != columns_.size())
        throw std::invalid_argument("sample tables with different columns cannot be joined");
    for (std::size_t i = 0; i < columns_.size(); ++i)
        if (columns_[i].name != other.columns_[i].name)
            throw std::invalid_argument("sample tables with different columns cannot be joined");
    rows_.insert(rows_.end(), other.rows_.begin(), other.rows_.end());
}

std::optional<std::size_t> SampleTable::column_index(std::string_view name) const {
    for (std::size_t i = 0; i < columns_.size(); ++i)
        if (columns_[i].name == name) return i;
    return std::nullopt;
}

std::vector<double> SampleTable::column(std::string_view name) const {
    std::vector<double> values;
    if (auto index = column_index(name)) {
        values.reserve(rows_.size());
        for (const auto& row : rows_) values.push_back(row[*index]);
    }
    return values;
}

Metric& TestResult::add_metric(std::string name, double value, std::optional<double> nominal) {
    metrics.push_back(Metric{std::move(name), "", value, nominal, Better::higher});
    return metrics.back();
}

void TestResult::fail(std::string_view why) {
    if (status != Status::error) status = Status::fail;
    if (reason.empty())
        reason = why;
    else
        reason.append("; ").append(why);
}

void TestResult::waive(std::string_view why) {
    status = Status::waived;
    reason = why;
}

}  // namespace shakedown
