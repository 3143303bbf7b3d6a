// Writes one rank's HDF5 trace. Every write is flushed to disk at once, so a crash keeps
// every finished test; the root attribute `status` stays "running" until finish().
// Thread-safe: the watchdog thread may mark the trace aborted while the main thread runs.
#pragma once

#include "trace/trace_format.hpp"

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>

namespace shakedown {

class TraceWriter {
public:
    // Creates `path` (never overwrites: an existing file is an InputError), writes the root
    // attributes with status "running", /config and /inventory, and flushes.
    TraceWriter(const std::filesystem::path& path, const TraceHeader& header, const std::string& config_yaml,
                const nlohmann::json& inventory);
    ~TraceWriter();  // closes the file; the status stays as last set
    TraceWriter(const TraceWriter&) = delete;
    TraceWriter& operator=(const TraceWriter&) = delete;

    void write_test(const TestResult& result);                              // /tests/<key>
    // /telemetry/<device>; `attributes` (the device's identity: uuid, name, pci_bus_id) are
    // written as string attributes when the table is created. "units" is the table's own.
    void append_telemetry(const std::string& device, const SampleTable& samples,
                          const std::map<std::string, std::string>& attributes = {});
    void append_event(const Event& event);                                  // /events
    void finish(TraceStatus status, double end_utc);                        // root status, end_utc

    // For the watchdog: record the event and mark the trace aborted, unless the writer stays
    // busy for longer than `wait` (then returns false and touches nothing).
    // With `stalled`, also where the rank stood (written once: a second abort keeps the first).
    bool try_abort(const Event& event, double end_utc, std::chrono::milliseconds wait,
                   const std::optional<StalledAt>& stalled = std::nullopt);

    const std::filesystem::path& path() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace shakedown
