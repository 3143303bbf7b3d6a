// RUN/progress.json, the heartbeat of a run in progress: its file name, its keys and its states,
// declared once. The heartbeat (driver/heartbeat.cpp) writes them, analysis/schemas/
// progress.schema.json publishes them, the tests read them through these names.
#pragma once

namespace shakedown::progress_keys {

inline constexpr const char* file_name = "progress.json";
inline constexpr int version = 1;

// The document.
inline constexpr const char* schema_version = "schema_version";
inline constexpr const char* run_id = "run_id";
inline constexpr const char* run_uuid = "run_uuid";
inline constexpr const char* suite = "suite";  // null when the run named its tests
inline constexpr const char* state = "state";
inline constexpr const char* reason = "reason";  // why it was aborted; null otherwise
inline constexpr const char* started_utc = "started_utc";  // also a test's, in `current`
inline constexpr const char* started_utc_iso = "started_utc_iso";
inline constexpr const char* updated_utc = "updated_utc";
inline constexpr const char* updated_utc_iso = "updated_utc_iso";
inline constexpr const char* tests = "tests";  // the planned keys, in order
inline constexpr const char* tests_total = "tests_total";
inline constexpr const char* tests_done = "tests_done";
inline constexpr const char* current = "current";    // the running test, null between tests
inline constexpr const char* finished = "finished";  // one entry per finished test, in order

// A test, in `current` and `finished`.
inline constexpr const char* key = "key";
inline constexpr const char* index = "index";  // 0-based position in `tests`
inline constexpr const char* elapsed_s = "elapsed_s";
inline constexpr const char* expected_s = "expected_s";        // null when unknown
inline constexpr const char* expected_from = "expected_from";  // "parameter duration_s", "estimate: ...", "unknown"
inline constexpr const char* status = "status";                // pass|fail|waived|error, the worst of any rank
inline constexpr const char* seconds = "seconds";

// The states.
inline constexpr const char* running = "running";
inline constexpr const char* finished_state = "finished";
inline constexpr const char* aborted = "aborted";

}  // namespace shakedown::progress_keys
