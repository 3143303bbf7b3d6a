// Names of the trace's groups, datasets and attributes: one table shared by the writer and
// the reader, so both always agree. docs/trace-format.md describes each one.
#pragma once

namespace shakedown::trace_layout {

// root attributes
inline constexpr const char* schema_version = "schema_version";
inline constexpr const char* shakedown_version = "shakedown_version";
inline constexpr const char* run_id = "run_id";
inline constexpr const char* run_uuid = "run_uuid";  // schema 1.1; absent in 1.0
inline constexpr const char* rank = "rank";
inline constexpr const char* world_size = "world_size";
inline constexpr const char* node = "node";
inline constexpr const char* local_rank = "local_rank";
// The rank's binding (core/rank_binding.hpp); the SLURM_* variables are attributes of their own names.
inline constexpr const char* cpu_affinity = "cpu_affinity";
inline constexpr const char* gpu_ordinal = "gpu_ordinal";
inline constexpr const char* cuda_visible_devices = "cuda_visible_devices";  // absent: unset
inline constexpr const char* status = "status";
// Times are float64 seconds since the Unix epoch (UTC); the *_iso twin is the same instant
// as ISO 8601 text for people reading h5dump. The reader uses the float64 one.
inline constexpr const char* start_utc = "start_utc";
inline constexpr const char* start_utc_iso = "start_utc_iso";
inline constexpr const char* end_utc = "end_utc";
inline constexpr const char* end_utc_iso = "end_utc_iso";

// root members
inline constexpr const char* config = "config";        // scalar string dataset: the resolved YAML
inline constexpr const char* inventory = "inventory";  // group: JSON mapped onto HDF5
inline constexpr const char* tests = "tests";          // group: one group per test, in run order
inline constexpr const char* telemetry = "telemetry";  // group: one extendable table per device
inline constexpr const char* events = "events";        // extendable table
// group, only in an aborted trace: where the rank stood when it was ended (JSON mapped onto HDF5)
inline constexpr const char* stalled = "stalled";
inline constexpr const char* stalled_test = "test";
inline constexpr const char* stalled_phase = "phase";
inline constexpr const char* stalled_waiting_for = "waiting_for";
inline constexpr const char* stalled_noticed_by = "noticed_by";
inline constexpr const char* stalled_late_s = "late_s";

// /tests/<key> members and attributes (besides status, reason and the times above)
inline constexpr const char* reason = "reason";
inline constexpr const char* cause = "cause";  // fail and error only: hardware, configuration or software
inline constexpr const char* parameters = "parameters";  // group: one string attribute per parameter
inline constexpr const char* metrics = "metrics";
inline constexpr const char* samples = "samples";
// schema 1.2: the timed phase (TestResult::measured), float64 times; absent when not recorded
inline constexpr const char* measured_start_utc = "measured_start_utc";
inline constexpr const char* measured_end_utc = "measured_end_utc";

// column tables (/tests/<key>/samples, /telemetry/<device>, /events): the columns' units
inline constexpr const char* units = "units";

}  // namespace shakedown::trace_layout
