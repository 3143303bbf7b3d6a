#include "analysis/history/history_store.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <system_error>

namespace shakedown::analysis {
namespace {

// Schema 1. The values' columns are the tidy rows of docs/analyzer.md ("Results history").
constexpr const char* schema_v1 = R"sql(
CREATE TABLE runs (
  id                INTEGER PRIMARY KEY,
  identity          TEXT NOT NULL UNIQUE,
  run_id            TEXT NOT NULL,
  run_uuid          TEXT NOT NULL,
  start_utc         REAL NOT NULL,
  end_utc           REAL,
  suite             TEXT NOT NULL,
  shakedown_version TEXT NOT NULL,
  status            TEXT NOT NULL,
  verdict           TEXT NOT NULL,
  run_dir           TEXT NOT NULL,
  appended_utc      TEXT NOT NULL
);
CREATE TABLE nodes (
  run     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  node    TEXT NOT NULL,
  verdict TEXT NOT NULL,
  PRIMARY KEY (run, node)
);
CREATE TABLE measurements (
  run        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  node       TEXT NOT NULL,
  rank       INTEGER NOT NULL,
  local_rank INTEGER NOT NULL,
  gpu        INTEGER,
  gpu_uuid   TEXT NOT NULL,
  test       TEXT NOT NULL,
  metric     TEXT NOT NULL,
  unit       TEXT NOT NULL,
  value      REAL,
  nominal    REAL,
  better     TEXT NOT NULL,
  level      TEXT NOT NULL
);
CREATE INDEX measurements_by_run_node ON measurements (run, node, metric);
CREATE TABLE counters (
  run     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  node    TEXT NOT NULL,
  device  TEXT NOT NULL,
  counter TEXT NOT NULL,
  unit    TEXT NOT NULL,
  first   REAL NOT NULL,
  last    REAL NOT NULL
);
CREATE INDEX counters_by_run_node ON counters (run, node);
)sql";

struct FileKind {
    std::int64_t application_id = 0;
    std::int64_t user_version = 0;
    std::int64_t objects = 0;  // tables, indexes, views, triggers
};

FileKind kind_of(sqlite::Connection& connection) {
    // The first read of a file that is not SQLite fails here ("file is not a database"). One
    // statement, so one snapshot: read one by one, another analyzer's commit of a new history
    // between them gave its tables beside the empty file's application_id 0 ("another program").
    try {
        sqlite::Statement statement(connection, "SELECT (SELECT application_id FROM pragma_application_id), "
                                                "(SELECT user_version FROM pragma_user_version), "
                                                "(SELECT count(*) FROM sqlite_master)");
        if (!statement.step()) connection.fail("not a shakedown results history");
        return {statement.integer(0), statement.integer(1), statement.integer(2)};
    } catch (const InputError&) {
        throw InputError(fmt::format("{}: not a shakedown results history ({}); not touched", connection.path().string(),
                                     connection.error_message()));
    }
}

void check_ours(const FileKind& kind, const std::filesystem::path& path) {
    if (kind.application_id != history_application_id)
        throw InputError(fmt::format("{}: not a shakedown results history (an SQLite database of another program, "
                                     "application_id {}); not touched",
                                     path.string(), kind.application_id));
    if (kind.user_version != history_schema_version)
        throw InputError(fmt::format("{}: results history schema version {}, this shakedown-analyze reads version {}; "
                                     "not touched",
                                     path.string(), kind.user_version, history_schema_version));
}

Better better_of(const std::string& text) { return better_from_string(text).value_or(Better::higher); }

}  // namespace

HistoryStore::HistoryStore(const std::filesystem::path& path, Access access, int busy_timeout_ms)
    : connection_(
          [&] {
              std::error_code error;
              if (access == Access::read && !std::filesystem::exists(path, error))
                  throw InputError(fmt::format("{}: no such results history", path.string()));
              if (std::filesystem::is_symlink(path, error))
                  throw InputError(fmt::format("{}: the results history is a symbolic link; not touched", path.string()));
              if (std::filesystem::exists(path, error) && !std::filesystem::is_regular_file(path, error))
                  throw InputError(fmt::format("{}: the results history is not a regular file; not touched", path.string()));
              return path;
          }(),
          access == Access::read ? sqlite::Connection::Mode::read_only : sqlite::Connection::Mode::read_write_create,
          busy_timeout_ms) {
    create_or_check(access);
}

void HistoryStore::create_or_check(Access access) {
    const FileKind kind = kind_of(connection_);
    const bool empty = kind.application_id == 0 && kind.user_version == 0 && kind.objects == 0;
    if (!empty || access == Access::read) {
        if (empty) throw InputError(fmt::format("{}: an empty file, not a shakedown results history", path().string()));
        check_ours(kind, path());
        connection_.execute("PRAGMA foreign_keys = ON");
        return;
    }
    // A new history. Another analyzer may be creating it at this moment: look again under the lock.
    sqlite::WriteTransaction transaction(connection_);
    const FileKind now = kind_of(connection_);
    if (now.objects == 0) {
        connection_.execute(schema_v1);
        // PRAGMAs take no parameters; these are the two constants above, not values from input.
        connection_.execute(fmt::format("PRAGMA application_id = {}", history_application_id));
        connection_.execute(fmt::format("PRAGMA user_version = {}", history_schema_version));
    } else {
        check_ours(now, path());
    }
    transaction.commit();
    connection_.execute("PRAGMA foreign_keys = ON");
}

HistoryStore::Appended HistoryStore::append(const RunRecord& run, const std::string& appended_utc) {
    sqlite::WriteTransaction transaction(connection_);
    Appended appended = Appended::added;
    // The children first and by name, so replacing does not depend on PRAGMA foreign_keys.
    for (const char* sql : {"DELETE FROM measurements WHERE run IN (SELECT id FROM runs WHERE identity = ?1)",
                            "DELETE FROM counters WHERE run IN (SELECT id FROM runs WHERE identity = ?1)",
                            "DELETE FROM nodes WHERE run IN (SELECT id FROM runs WHERE identity = ?1)",
                            "DELETE FROM runs WHERE identity = ?1"}) {
        sqlite::Statement earlier(connection_, sql);
        earlier.bind(1, run.identity).run();
        if (connection_.changes() > 0) appended = Appended::replaced;
    }
    sqlite::Statement insert_run(
        connection_, "INSERT INTO runs (identity, run_id, run_uuid, start_utc, end_utc, suite, shakedown_version, "
                     "status, verdict, run_dir, appended_utc) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
    insert_run.bind(1, run.identity).bind(2, run.run_id).bind(3, run.run_uuid).bind(4, run.start_utc).bind(5, run.end_utc);
    insert_run.bind(6, run.suite).bind(7, run.shakedown_version).bind(8, run.status).bind(9, run.verdict);
    insert_run.bind(10, run.run_dir).bind(11, appended_utc).run();
    const std::int64_t id = connection_.last_insert_rowid();

    sqlite::Statement insert_node(connection_, "INSERT INTO nodes (run, node, verdict) VALUES (?1, ?2, ?3)");
    for (const NodeRecord& node : run.nodes) insert_node.bind(1, id).bind(2, node.node).bind(3, node.verdict).run();

    sqlite::Statement insert_value(
        connection_, "INSERT INTO measurements (run, node, rank, local_rank, gpu, gpu_uuid, test, metric, unit, "
                     "value, nominal, better, level) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
    for (const MeasuredValue& value : run.values) {
        insert_value.bind(1, id).bind(2, value.node).bind(3, value.rank).bind(4, value.local_rank).bind(5, value.gpu);
        insert_value.bind(6, value.gpu_uuid).bind(7, value.test).bind(8, value.metric).bind(9, value.unit);
        insert_value.bind(10, value.value).bind(11, value.nominal).bind(12, to_string(value.better)).bind(13, value.level);
        insert_value.run();
    }
    sqlite::Statement insert_counter(connection_, "INSERT INTO counters (run, node, device, counter, unit, first, last) "
                                                  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    for (const CounterReading& counter : run.counters) {
        insert_counter.bind(1, id).bind(2, counter.node).bind(3, counter.device).bind(4, counter.counter);
        insert_counter.bind(5, counter.unit).bind(6, counter.first).bind(7, counter.last).run();
    }
    transaction.commit();
    return appended;
}

std::vector<StoredRun> HistoryStore::runs() {
    std::vector<StoredRun> out;
    sqlite::Statement select(connection_,
                             "SELECT id, identity, run_id, run_uuid, start_utc, end_utc, suite, shakedown_version, status, "
                             "verdict, run_dir, appended_utc FROM runs ORDER BY start_utc, id");
    while (select.step()) {
        StoredRun run;
        run.id = select.integer(0);
        run.header.identity = select.text(1);
        run.header.run_id = select.text(2);
        run.header.run_uuid = select.text(3);
        run.header.start_utc = select.real(4);
        run.header.end_utc = select.optional_real(5);
        run.header.suite = select.text(6);
        run.header.shakedown_version = select.text(7);
        run.header.status = select.text(8);
        run.header.verdict = select.text(9);
        run.header.run_dir = select.text(10);
        run.appended_utc = select.text(11);
        out.push_back(std::move(run));
    }
    return out;
}

RunRecord HistoryStore::read(const StoredRun& run, const std::optional<std::string>& node,
                             const std::optional<std::string>& metric) {
    RunRecord record = run.header;
    // NULL parameters match everything: one statement for every filter, no SQL built from input.
    sqlite::Statement nodes(connection_, "SELECT node, verdict FROM nodes WHERE run = ?1 AND (?2 IS NULL OR node = ?2) "
                                         "ORDER BY rowid");
    nodes.bind(1, run.id);
    if (node) nodes.bind(2, *node);
    while (nodes.step()) record.nodes.push_back({nodes.text(0), nodes.text(1)});

    sqlite::Statement values(
        connection_, "SELECT node, rank, local_rank, gpu, gpu_uuid, test, metric, unit, value, nominal, better, level "
                     "FROM measurements WHERE run = ?1 AND (?2 IS NULL OR node = ?2) AND (?3 IS NULL OR metric = ?3) "
                     "ORDER BY rowid");
    values.bind(1, run.id);
    if (node) values.bind(2, *node);
    if (metric) values.bind(3, *metric);
    while (values.step())
        record.values.push_back({.node = values.text(0),
                                 .rank = static_cast<int>(values.integer(1)),
                                 .local_rank = static_cast<int>(values.integer(2)),
                                 .gpu = values.optional_int(3),
                                 .gpu_uuid = values.text(4),
                                 .test = values.text(5),
                                 .metric = values.text(6),
                                 .unit = values.text(7),
                                 .value = values.real(8),
                                 .nominal = values.optional_real(9),
                                 .better = better_of(values.text(10)),
                                 .level = values.text(11)});

    sqlite::Statement counters(connection_, "SELECT node, device, counter, unit, first, last FROM counters "
                                            "WHERE run = ?1 AND (?2 IS NULL OR node = ?2) ORDER BY rowid");
    counters.bind(1, run.id);
    if (node) counters.bind(2, *node);
    while (counters.step())
        record.counters.push_back({counters.text(0), counters.text(1), counters.text(2), counters.text(3), counters.real(4),
                                   counters.real(5)});
    return record;
}

bool HistoryStore::has_node(const std::string& node) {
    sqlite::Statement select(connection_, "SELECT 1 FROM nodes WHERE node = ?1 LIMIT 1");
    select.bind(1, node);
    return select.step();
}

}  // namespace shakedown::analysis
