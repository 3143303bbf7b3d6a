// The per-rank trace as a value: what TraceWriter writes and read_trace() gives back.
// The on-disk layout is documented in docs/trace-format.md.
#pragma once

#include "core/activity.hpp"
#include "core/rank_binding.hpp"
#include "core/result.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown {

// 1.1 adds the root attribute run_uuid; a 1.0 trace (without it) is read as before.
// 1.2 adds a test's timed phase (measured_start_utc, measured_end_utc); older traces have none.
inline constexpr const char* trace_schema_version = "1.2";

// A trace that cannot be written or read: one line naming the file and what is wrong.
class TraceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class TraceStatus { running, complete, aborted };
std::string_view to_string(TraceStatus status);
std::optional<TraceStatus> trace_status_from_string(std::string_view text);

struct TraceHeader {
    std::string schema_version = trace_schema_version;
    std::string shakedown_version;
    std::string run_id;
    // The run's random identity (run.json's run_uuid): a trace of another run that shares the
    // folder name has another. Empty in a trace written before schema 1.1.
    std::string run_uuid;
    int rank = 0;
    int world_size = 1;
    std::string node;
    int local_rank = 0;
    double start_utc = 0.0;
    // CPUs, GPUs and Slurm placement of the rank (root attributes cpu_affinity, gpu_ordinal,
    // cuda_visible_devices, SLURM_*); absent from traces written before they were added.
    RankBinding binding;
};

// Where a rank stood when the watchdog or a termination signal ended it (the /stalled group).
struct StalledAt {
    ActivitySnapshot activity;
    std::string noticed_by;  // stalled_by_watchdog or stalled_by_signal
    double late_s = 0.0;     // how long after the deadline the watchdog woke: seconds = the process was frozen
};
// How long a rank whose watchdog fired waits before it exits, so the other live ranks' watchdogs
// (armed at the same barrier) record where they stood. A frozen rank's watchdog, resumed only as
// the job ends, therefore wakes at least this late; half of it tells the two apart.
inline constexpr double watchdog_collect_s = 2.0;
inline constexpr double frozen_watchdog_late_s = watchdog_collect_s / 2.0;
inline constexpr const char* stalled_by_watchdog = "watchdog";
inline constexpr const char* stalled_by_signal = "signal";

struct Trace {
    TraceHeader header;
    TraceStatus status = TraceStatus::running;
    double end_utc = 0.0;  // 0 while running
    std::string config_yaml;
    nlohmann::json inventory;
    std::vector<TestResult> tests;                  // in the order they ran
    std::map<std::string, SampleTable> telemetry;   // per device: "host", "gpu0", ...
    // per device, what identifies it ("uuid", "name", "pci_bus_id" of a GPU); may be empty
    std::map<std::string, std::map<std::string, std::string>> telemetry_attributes;
    std::vector<Event> events;
    std::optional<StalledAt> stalled;  // only in an aborted trace, when the ending said where it stood
};

}  // namespace shakedown
