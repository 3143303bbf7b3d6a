// The results history: one SQLite file that every `shakedown-analyze RUN --history FILE` appends
// its run to, and `history` reads (docs/analyzer.md, "Results history"). The file says what it is
// (SQLite's application_id "SHKD") and which schema it holds (user_version); a file that is not
// SQLite, another program's database or a newer schema is refused before anything is written.
// Writes are one IMMEDIATE transaction each with a busy timeout, so analyzers appending at the
// same time wait for each other; the same run (its identity) appended again replaces its earlier
// entry instead of adding a second.
#pragma once

#include "analysis/history/run_record.hpp"
#include "analysis/history/sqlite.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::analysis {

inline constexpr int history_schema_version = 1;
inline constexpr std::int32_t history_application_id = 0x53484B44;  // "SHKD"
// How long an append waits for another analyzer's write before giving up (one clear line, exit 2).
inline constexpr int history_busy_timeout_ms = 30'000;

// A run in the history, as listed (without its values).
struct StoredRun {
    std::int64_t id = 0;
    RunRecord header;  // identity, run id, times, suite, status, verdict, run_dir; no nodes, values or counters
    std::string appended_utc;
};

class HistoryStore {
public:
    enum class Access { append, read };
    // append: creates the file when it does not exist (or is empty); read: it must exist. Throws
    // InputError naming the file for anything else that is not a shakedown history.
    HistoryStore(const std::filesystem::path& path, Access access, int busy_timeout_ms = history_busy_timeout_ms);

    enum class Appended { added, replaced };
    Appended append(const RunRecord& run, const std::string& appended_utc);

    std::vector<StoredRun> runs();  // oldest first (start time, then order of appending)
    // One stored run's nodes, values (all, or of one node or metric) and counters (all, or one node's).
    RunRecord read(const StoredRun& run, const std::optional<std::string>& node = std::nullopt,
                   const std::optional<std::string>& metric = std::nullopt);
    bool has_node(const std::string& node);

    const std::filesystem::path& path() const { return connection_.path(); }

private:
    void create_or_check(Access access);

    sqlite::Connection connection_;
};

}  // namespace shakedown::analysis
