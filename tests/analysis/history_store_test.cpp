// The results history file (analysis/history/history_store.hpp) on real run folders: appending,
// the same run appended twice kept once, foreign and newer files refused untouched, and two
// processes appending at the same time (separate processes, as two analyzers are: SQLite's file
// locks are per process).
#include "analysis/history/history_store.hpp"
#include "analysis/history/sqlite.hpp"
#include "analysis_fixtures.hpp"
#include "core/errors.hpp"
#include "history_fixtures.hpp"

#include <gtest/gtest.h>

#include <cstdio>

#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <thread>

namespace shakedown::analysis {
namespace {

using testing::read_text;
using testing::TempDir;
using testing::write_history_run;

RunRecord healthy_record(const TempDir& temp, const std::string& run_id = "r1") {
    return read_run_record(write_history_run(temp.path() / run_id, {.run_id = run_id, .run_uuid = "uuid-" + run_id}));
}

void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out << bytes;
}

std::string refusal(const std::filesystem::path& path, HistoryStore::Access access = HistoryStore::Access::append) {
    try {
        HistoryStore store(path, access);
    } catch (const InputError& error) {
        return error.what();
    }
    return "";
}

TEST(HistoryStore, AppendsARunWithItsValuesNodesAndCounters) {
    TempDir temp;
    const RunRecord run = healthy_record(temp);
    ASSERT_EQ(run.values.size(), 9u);  // 3 nodes x (triad, copy, latency)
    ASSERT_EQ(run.nodes.size(), 3u);
    ASSERT_FALSE(run.counters.empty());
    HistoryStore store(temp.path() / "history.sqlite", HistoryStore::Access::append);
    EXPECT_EQ(store.append(run, "2026-12-01T00:00:00Z"), HistoryStore::Appended::added);

    HistoryStore reader(temp.path() / "history.sqlite", HistoryStore::Access::read);
    const auto runs = reader.runs();
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].header.run_id, "r1");
    EXPECT_EQ(runs[0].header.identity, "uuid-r1");
    const RunRecord back = reader.read(runs[0]);
    ASSERT_EQ(back.values.size(), run.values.size());
    for (std::size_t i = 0; i < run.values.size(); ++i) {
        EXPECT_EQ(back.values[i].node, run.values[i].node);
        EXPECT_EQ(back.values[i].metric, run.values[i].metric);
        EXPECT_EQ(back.values[i].unit, run.values[i].unit);
        EXPECT_EQ(back.values[i].value, run.values[i].value);
        EXPECT_EQ(back.values[i].nominal, run.values[i].nominal);
        EXPECT_EQ(back.values[i].better, run.values[i].better);
    }
    ASSERT_EQ(back.counters.size(), run.counters.size());
    const RunRecord node1 = reader.read(runs[0], std::string("node0001"), std::string(testing::planted_metric));
    ASSERT_EQ(node1.values.size(), 1u);
    EXPECT_DOUBLE_EQ(node1.values[0].value, testing::healthy_triad(1));
    EXPECT_TRUE(reader.has_node("node0002"));
    EXPECT_FALSE(reader.has_node("node0009"));
}

TEST(HistoryStore, TheSameRunAppendedTwiceIsKeptOnce) {
    TempDir temp;
    const RunRecord run = healthy_record(temp);
    HistoryStore store(temp.path() / "history.sqlite", HistoryStore::Access::append);
    EXPECT_EQ(store.append(run, "2026-12-01T00:00:00Z"), HistoryStore::Appended::added);
    EXPECT_EQ(store.append(run, "2026-12-01T00:05:00Z"), HistoryStore::Appended::replaced);
    EXPECT_EQ(store.append(healthy_record(temp, "r2"), "2026-12-01T00:06:00Z"), HistoryStore::Appended::added);
    const auto runs = store.runs();
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].appended_utc, "2026-12-01T00:05:00Z");  // the later append replaced the first
    EXPECT_EQ(store.read(runs[0]).values.size(), run.values.size());
    EXPECT_EQ(store.read(runs[0]).counters.size(), run.counters.size());
}

TEST(HistoryStore, ForeignAndNewerFilesAreRefusedAndLeftUntouched) {
    TempDir temp;
    const auto text = temp.path() / "notes.txt";
    write_bytes(text, "not a database, just notes\n");
    EXPECT_NE(refusal(text).find("not a shakedown results history"), std::string::npos) << refusal(text);
    EXPECT_EQ(read_text(text), "not a database, just notes\n");

    const auto other = temp.path() / "other.sqlite";
    {
        sqlite::Connection connection(other, sqlite::Connection::Mode::read_write_create, 0);
        connection.execute("CREATE TABLE things (x)");
    }
    const std::string before = read_text(other);
    EXPECT_NE(refusal(other).find("another program"), std::string::npos) << refusal(other);
    EXPECT_EQ(read_text(other), before);

    const auto newer = temp.path() / "newer.sqlite";
    { HistoryStore store(newer, HistoryStore::Access::append); }
    {
        sqlite::Connection connection(newer, sqlite::Connection::Mode::read_write_create, 0);
        connection.execute("PRAGMA user_version = 99");
    }
    const std::string newer_bytes = read_text(newer);
    EXPECT_NE(refusal(newer).find("schema version 99"), std::string::npos) << refusal(newer);
    EXPECT_EQ(read_text(newer), newer_bytes);

    EXPECT_NE(refusal(temp.path() / "absent.sqlite", HistoryStore::Access::read).find("no such results history"),
              std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(temp.path() / "absent.sqlite"));  // reading never creates one
    EXPECT_NE(refusal(temp.path()).find("not a regular file"), std::string::npos) << refusal(temp.path());
    std::filesystem::create_symlink(text, temp.path() / "link.sqlite");
    EXPECT_NE(refusal(temp.path() / "link.sqlite").find("symbolic link"), std::string::npos);
}

// Runs `work` in a child process; its exit status: 0 when it returned true, 1 when it threw.
pid_t in_child(const std::function<bool()>& work) {
    const pid_t pid = fork();
    if (pid == 0) {
        int code = 1;
        try {
            code = work() ? 0 : 1;
        } catch (const std::exception& error) {
            std::fprintf(stderr, "child process: %s\n", error.what());  // the cause beside the parent's failure
        }
        _exit(code);
    }
    return pid;
}

int exit_status(pid_t pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A child process that takes the history's write lock, says so through a pipe, holds it for
// `hold_ms` and commits. (The lock is held in a child, not here: an SQLite connection open in a
// process must not be carried across fork, so the test process opens none before forking.)
pid_t hold_write_lock(const std::filesystem::path& path, int hold_ms) {
    int ready[2];
    if (pipe(ready) != 0) throw std::runtime_error("pipe failed");
    const pid_t holder = in_child([&] {
        close(ready[0]);
        sqlite::Connection connection(path, sqlite::Connection::Mode::read_write_create, 0);
        connection.execute("BEGIN IMMEDIATE");
        const char byte = 'x';
        if (write(ready[1], &byte, 1) != 1) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(hold_ms));
        connection.execute("COMMIT");
        return true;
    });
    close(ready[1]);
    char byte = 0;
    const bool locked = read(ready[0], &byte, 1) == 1;
    close(ready[0]);
    if (!locked) throw std::runtime_error("the lock holder did not start");
    return holder;
}

// One analyzer holds the write lock; another appending meanwhile waits for it (busy timeout)
// instead of failing, and without a busy timeout the same append fails: the timeout is what works.
TEST(HistoryStore, AnAppendWaitsForAnotherAnalyzersWrite) {
    TempDir temp;
    const auto path = temp.path() / "history.sqlite";
    const RunRecord run = healthy_record(temp);
    { HistoryStore store(path, HistoryStore::Access::append); }
    for (const int timeout_ms : {0, 30'000}) {
        const pid_t holder = hold_write_lock(path, 400);
        const auto start = std::chrono::steady_clock::now();
        const pid_t child = in_child([&] {
            HistoryStore store(path, HistoryStore::Access::append, timeout_ms);
            store.append(run, "2026-12-01T00:00:00Z");
            return true;
        });
        const int status = exit_status(child);
        const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        EXPECT_EQ(exit_status(holder), 0);
        if (timeout_ms == 0) {
            EXPECT_EQ(status, 1) << "without a busy timeout the append should have found the file locked";
        } else {
            EXPECT_EQ(status, 0);
            EXPECT_GE(waited, 0.3);  // it waited for the holder's commit
        }
    }
    HistoryStore store(path, HistoryStore::Access::read);
    EXPECT_EQ(store.runs().size(), 1u);
}

TEST(HistoryStore, TwoAnalyzersAppendingAtOnceLoseNothingAndCorruptNothing) {
    TempDir temp;
    const auto path = temp.path() / "history.sqlite";  // both create it: the schema is made once
    const RunRecord base = healthy_record(temp);
    constexpr int per_process = 15;
    std::vector<pid_t> children;
    for (int process = 0; process < 2; ++process)
        children.push_back(in_child([&, process] {
            HistoryStore store(path, HistoryStore::Access::append);
            for (int i = 0; i < per_process; ++i) {
                RunRecord run = base;
                run.identity = fmt::format("p{}-{}", process, i);
                run.run_id = run.identity;
                // A few hundred rows per append, so the two writers' transactions overlap.
                for (int copy = 0; copy < 40; ++copy)
                    run.values.insert(run.values.end(), base.values.begin(), base.values.end());
                store.append(run, "2026-12-01T00:00:00Z");
            }
            return true;
        }));
    for (pid_t child : children) EXPECT_EQ(exit_status(child), 0);

    HistoryStore store(path, HistoryStore::Access::read);
    const auto runs = store.runs();
    EXPECT_EQ(runs.size(), 2u * per_process);
    for (const StoredRun& run : runs) EXPECT_EQ(store.read(run).values.size(), base.values.size() * 41) << run.header.run_id;
    sqlite::Connection check(path, sqlite::Connection::Mode::read_only, 0);
    sqlite::Statement integrity(check, "PRAGMA integrity_check");
    ASSERT_TRUE(integrity.step());
    EXPECT_EQ(integrity.text(0), "ok");
}

}  // namespace
}  // namespace shakedown::analysis
