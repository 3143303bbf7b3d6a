// Results are plain values. A test returns one TestResult; the HDF5 trace writer, the
// console progress line and run.json are sinks of that same value.
#pragma once

#include "core/cause.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown {

enum class Status { pass, fail, waived, error };
enum class Better { higher, lower };
enum class Severity { info, warning, error };

std::string_view to_string(Status status);
std::string_view to_string(Better better);
std::string_view to_string(Severity severity);
std::optional<Status> status_from_string(std::string_view text);
std::optional<Better> better_from_string(std::string_view text);
std::optional<Severity> severity_from_string(std::string_view text);

// One figure of merit: "host_stream.triad_gbs" = 12.3 GB/s, nominal 20, higher is better.
struct Metric {
    std::string name;  // stable snake_case key: "<test>.<quantity>_<unit>"
    std::string unit;
    double value = 0.0;
    std::optional<double> nominal;  // what the hardware found should deliver
    Better better = Better::higher;

    std::optional<double> usable_fraction() const;  // value / nominal, when nominal > 0
};

// A column table of doubles with named, unit-carrying columns: one row per measurement
// (message size, peer, iteration, seconds, value, ...). Telemetry uses the same shape.
class SampleTable {
public:
    struct Column {
        std::string name;
        std::string unit;
    };

    SampleTable() = default;
    explicit SampleTable(std::vector<Column> columns);

    const std::vector<Column>& columns() const { return columns_; }
    const std::vector<std::vector<double>>& rows() const { return rows_; }
    std::size_t size() const { return rows_.size(); }
    bool empty() const { return rows_.empty(); }

    // Throws std::invalid_argument when the row has the wrong number of values.
    void add_row(std::vector<double> row);
    void append(const SampleTable& other);  // same columns required
    std::optional<std::size_t> column_index(std::string_view name) const;
    std::vector<double> column(std::string_view name) const;  // empty when absent

private:
    std::vector<Column> columns_;
    std::vector<std::vector<double>> rows_;
};

struct Event {
    double t = 0.0;  // seconds since the Unix epoch
    Severity severity = Severity::info;
    std::string text;
};

// A span of wall-clock time, seconds since the Unix epoch (telemetry's clock).
struct TimeWindow {
    double start_utc = 0.0;
    double end_utc = 0.0;
    double seconds() const { return end_utc - start_utc; }
};

struct TestResult {
    std::string key;
    Status status = Status::pass;
    std::string reason;  // why it failed, was waived or errored; empty on a clean pass
    double start_utc = 0.0;  // seconds since the Unix epoch: matches telemetry time stamps
    double end_utc = 0.0;
    // The timed phase inside [start_utc, end_utc]: the repetitions its rate figures come from,
    // without set-up, warm-up and validation. What the analyzer integrates the device's power
    // over for the energy a unit of work took (core/energy_declaration.hpp); unset: not recorded.
    std::optional<TimeWindow> measured;
    std::map<std::string, std::string> parameters;  // what the test actually used
    std::vector<Metric> metrics;
    SampleTable samples;
    // Status error from an InputError thrown by run(): a value only this node could judge
    // impossible (a size its memory cannot hold, a device it lacks). The driver exits 2.
    bool bad_input = false;
    // Who must act when the status is fail or error; unset: see cause_of().
    std::optional<Cause> cause;

    // Builders used inside tests. A metric's unit and direction come from the test's declaration
    // (the runner applies them). fail() keeps the first reason and appends later ones.
    Metric& add_metric(std::string name, double value, std::optional<double> nominal = std::nullopt);
    void fail(std::string_view why);
    void waive(std::string_view why);
    bool failed() const { return status == Status::fail || status == Status::error; }
};

// The cause a result records, else its default: a failed test is the hardware's (the test's
// own validation or figures said so), an error is configuration when it was bad input and
// software otherwise. Nothing for a pass or a waiver.
std::optional<Cause> cause_of(const TestResult& result);

}  // namespace shakedown
