// Reads one rank's HDF5 trace back into a Trace value. Any file that is not a shakedown
// trace (missing, truncated, not HDF5, wrong layout) throws TraceError with one clear line
// naming the file; the reader never crashes on hostile input.
#pragma once

#include "trace/trace_format.hpp"

#include <filesystem>

namespace shakedown {

struct TraceReadOptions {
    bool samples = true;    // /tests/<key>/samples (the analyzer's summary needs only metrics)
    bool telemetry = true;  // /telemetry/*
    bool inventory = true;  // /inventory
    bool config = true;     // /config (the resolved YAML text)
    bool events = true;     // /events
};

// With every option false it reads only the root attributes, /tests/<key> attributes and
// parameters and the metrics tables: what the analyzer needs from thousands of files.
Trace read_trace(const std::filesystem::path& path, const TraceReadOptions& options = {});

}  // namespace shakedown
