#include "analysis/history/sqlite.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cmath>
#include <limits>

namespace shakedown::analysis::sqlite {

Connection::Connection(const std::filesystem::path& path, Mode mode, int busy_timeout_ms) : path_(path) {
    const int flags = mode == Mode::read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    // SQLITE_OPEN_NOFOLLOW: a history that is a symbolic link is refused, as every other output is.
    const int status = sqlite3_open_v2(path.c_str(), &db_, flags | SQLITE_OPEN_NOFOLLOW, nullptr);
    if (status != SQLITE_OK) {
        const std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(status);
        sqlite3_close(db_);
        db_ = nullptr;
        throw InputError(fmt::format("{}: cannot open the history ({})", path.string(), message));
    }
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, busy_timeout_ms);
}

Connection::~Connection() {
    // Every Statement is finalized before its Connection goes (they are members declared after it
    // or locals), so close cannot fail with statements still open.
    sqlite3_close(db_);
}

void Connection::fail(std::string_view what) const {
    throw InputError(fmt::format("{}: {} ({})", path_.string(), what, sqlite3_errmsg(db_)));
}

void Connection::execute(std::string_view sql) {
    char* message = nullptr;
    const int status = sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &message);
    if (status != SQLITE_OK) {
        const std::string text = message != nullptr ? message : sqlite3_errstr(status);
        sqlite3_free(message);
        throw InputError(fmt::format("{}: {}", path_.string(), text));
    }
}

std::string Connection::error_message() const { return sqlite3_errmsg(db_); }

std::int64_t Connection::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }

int Connection::changes() const { return sqlite3_changes(db_); }

Statement::Statement(Connection& connection, std::string_view sql) : connection_(&connection) {
    if (sqlite3_prepare_v2(connection.handle(), sql.data(), static_cast<int>(sql.size()), &statement_, nullptr) != SQLITE_OK)
        connection.fail("cannot read the history");
}

Statement::Statement(Statement&& other) noexcept : connection_(other.connection_), statement_(other.statement_) {
    other.statement_ = nullptr;
}

Statement::~Statement() { sqlite3_finalize(statement_); }

Statement& Statement::bind(int index, std::string_view text) {
    if (sqlite3_bind_text(statement_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT) != SQLITE_OK)
        connection_->fail("cannot bind a value");
    return *this;
}

Statement& Statement::bind(int index, double value) {
    if (std::isnan(value)) return bind_null(index);
    if (sqlite3_bind_double(statement_, index, value) != SQLITE_OK) connection_->fail("cannot bind a value");
    return *this;
}

Statement& Statement::bind(int index, std::int64_t value) {
    if (sqlite3_bind_int64(statement_, index, value) != SQLITE_OK) connection_->fail("cannot bind a value");
    return *this;
}

Statement& Statement::bind(int index, const std::optional<double>& value) {
    return value ? bind(index, *value) : bind_null(index);
}

Statement& Statement::bind(int index, const std::optional<int>& value) {
    return value ? bind(index, static_cast<std::int64_t>(*value)) : bind_null(index);
}

Statement& Statement::bind_null(int index) {
    if (sqlite3_bind_null(statement_, index) != SQLITE_OK) connection_->fail("cannot bind a value");
    return *this;
}

bool Statement::step() {
    const int status = sqlite3_step(statement_);
    if (status == SQLITE_ROW) return true;
    if (status == SQLITE_DONE) return false;
    connection_->fail("cannot read or write the history");
}

void Statement::run() {
    while (step()) {
    }
    reset();
}

void Statement::reset() {
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
}

bool Statement::is_null(int column) const { return sqlite3_column_type(statement_, column) == SQLITE_NULL; }

std::string Statement::text(int column) const {
    const auto* bytes = sqlite3_column_text(statement_, column);
    if (bytes == nullptr) return {};
    return {reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(sqlite3_column_bytes(statement_, column))};
}

double Statement::real(int column) const {
    return is_null(column) ? std::numeric_limits<double>::quiet_NaN() : sqlite3_column_double(statement_, column);
}

std::optional<double> Statement::optional_real(int column) const {
    if (is_null(column)) return std::nullopt;
    return sqlite3_column_double(statement_, column);
}

std::int64_t Statement::integer(int column) const { return sqlite3_column_int64(statement_, column); }

std::optional<int> Statement::optional_int(int column) const {
    if (is_null(column)) return std::nullopt;
    return sqlite3_column_int(statement_, column);
}

WriteTransaction::WriteTransaction(Connection& connection) : connection_(connection) {
    connection_.execute("BEGIN IMMEDIATE");
}

WriteTransaction::~WriteTransaction() {
    if (!open_) return;
    try {
        connection_.execute("ROLLBACK");
    } catch (const std::exception&) {  // nothing more to undo: SQLite rolled back already
    }
}

void WriteTransaction::commit() {
    connection_.execute("COMMIT");
    open_ = false;
}

}  // namespace shakedown::analysis::sqlite
