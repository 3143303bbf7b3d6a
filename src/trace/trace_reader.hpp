// Reads one rank's HDF5 trace back into a Trace value. Any file that is not a shakedown
// trace (missing, truncated, not HDF5, wrong layout) throws TraceError with one clear line
// naming the file; the reader never crashes on hostile input.
#pragma once

#include "trace/trace_format.hpp"

#include <filesystem>
#include <functional>
#include <string_view>

namespace shakedown {

struct TraceReadOptions {
    bool samples = true;    // /tests/<key>/samples (the analyzer's summary needs only metrics)
    bool telemetry = true;  // /telemetry/*
    bool inventory = true;  // /inventory
    bool config = true;     // /config (the resolved YAML text)
    bool events = true;     // /events
    // /tests: a rule that wants one node's telemetry has the metrics already (the loader read
    // them), and reading them again is most of what a trace costs.
    bool tests = true;
    // With telemetry: the tables (by name: "host", "gpu0", ...) to read, data and attributes; the
    // others are skipped unread. Empty: every table.
    std::function<bool(std::string_view table)> telemetry_table;
};

// With every option false it reads only the root attributes, /tests/<key> attributes and
// parameters and the metrics tables: what the analyzer needs from thousands of files.
Trace read_trace(const std::filesystem::path& path, const TraceReadOptions& options = {});

}  // namespace shakedown
