// The trace's tables as 1-D compound datasets: metrics, sample/telemetry column tables and
// events. Writing builds the compound type from the value; reading checks the stored type
// field by field before it reads a byte, so a foreign or damaged table is one clear line.
#pragma once

#include "core/result.hpp"
#include "trace/hdf5_error.hpp"
#include "trace/hdf5_handle.hpp"

#include <string>
#include <vector>

namespace shakedown::hdf5 {

// Rows per chunk of the extendable tables (telemetry, events). A telemetry row is a few
// hundred bytes at most, so a chunk stays well inside HDF5's 1 MiB default chunk cache.
inline constexpr hsize_t telemetry_chunk_rows = 512;
inline constexpr hsize_t event_chunk_rows = 8;  // a row is ~1 KiB (fixed 1024-byte text)

// --- metrics: name, unit (strings), value, nominal (float64, NaN = none), better (string)
void write_metrics(hid_t group, const std::string& name, const std::vector<Metric>& metrics,
                   const ErrorContext& context);
std::vector<Metric> read_metrics(hid_t group, const std::string& name, const ErrorContext& context);

// --- column tables: one float64 field per SampleTable column, units in attribute "units"
// Throws std::invalid_argument for a table with no columns or with empty or repeated names.
void write_columns(hid_t group, const std::string& name, const SampleTable& table, const ErrorContext& context);
void create_extendable_columns(hid_t group, const std::string& name, const SampleTable& table,
                               const ErrorContext& context);
// Appends the rows; the stored table must have the same columns in the same order.
void append_columns(hid_t dataset, const SampleTable& table, const ErrorContext& context);
SampleTable read_columns(hid_t group, const std::string& name, const ErrorContext& context);

// --- events: t (float64, s since epoch), severity, text (strings)
void create_events(hid_t group, const std::string& name, const ErrorContext& context);
void append_event(hid_t dataset, const Event& event, const ErrorContext& context);
std::vector<Event> read_events(hid_t group, const std::string& name, const ErrorContext& context);

}  // namespace shakedown::hdf5
