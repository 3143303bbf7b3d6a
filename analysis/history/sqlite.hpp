// A thin RAII layer over the SQLite C API for the results history: a connection that closes
// itself, prepared statements that finalize themselves and bind values by position (SQL is never
// formatted with values), and a write transaction that rolls back unless committed. Every SQLite
// error becomes an InputError naming the file, so the command prints one line and exits 2.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace shakedown::analysis::sqlite {

class Connection;

class Statement {
public:
    Statement(Connection& connection, std::string_view sql);
    ~Statement();
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    Statement(Statement&& other) noexcept;
    Statement& operator=(Statement&&) = delete;

    // Parameters are numbered from 1, as in SQLite.
    Statement& bind(int index, std::string_view text);
    Statement& bind(int index, double value);  // NaN is stored as NULL (SQLite has no NaN)
    Statement& bind(int index, std::int64_t value);
    Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
    Statement& bind(int index, const std::optional<double>& value);
    Statement& bind(int index, const std::optional<int>& value);
    Statement& bind_null(int index);

    // One step: true while a row is ready, false when done.
    bool step();
    // Runs a statement that returns no rows (or ignores them) and resets it for the next bindings.
    void run();
    void reset();

    bool is_null(int column) const;
    std::string text(int column) const;  // "" for NULL
    double real(int column) const;       // NaN for NULL
    std::optional<double> optional_real(int column) const;
    std::int64_t integer(int column) const;
    std::optional<int> optional_int(int column) const;

private:
    Connection* connection_;
    sqlite3_stmt* statement_ = nullptr;
};

class Connection {
public:
    enum class Mode { read_only, read_write_create };
    // Opens (or, read_write_create, creates) `path`; waits up to `busy_timeout_ms` for another
    // process's lock before an operation gives up.
    Connection(const std::filesystem::path& path, Mode mode, int busy_timeout_ms);
    ~Connection();
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    // Runs SQL without parameters (schema, PRAGMA, BEGIN/COMMIT).
    void execute(std::string_view sql);
    std::int64_t last_insert_rowid() const;
    int changes() const;  // rows the last INSERT, UPDATE or DELETE changed
    const std::filesystem::path& path() const { return path_; }

    // "HISTORY: <what> (<sqlite message>)": what every failure throws.
    [[noreturn]] void fail(std::string_view what) const;
    std::string error_message() const;  // SQLite's message for the last failed call

    sqlite3* handle() { return db_; }

private:
    std::filesystem::path path_;
    sqlite3* db_ = nullptr;
};

// BEGIN IMMEDIATE: takes the write lock at once (waiting out the busy timeout), so two analyzers
// appending at the same time queue one after the other instead of one failing half way.
// Rolled back on destruction unless commit() ran.
class WriteTransaction {
public:
    explicit WriteTransaction(Connection& connection);
    ~WriteTransaction();
    WriteTransaction(const WriteTransaction&) = delete;
    WriteTransaction& operator=(const WriteTransaction&) = delete;
    void commit();

private:
    Connection& connection_;
    bool open_ = true;
};

}  // namespace shakedown::analysis::sqlite
