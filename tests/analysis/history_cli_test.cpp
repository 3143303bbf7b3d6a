// The executable end to end on real run folders: `RUN --history FILE` appends each analyzed run
// (once), `history FILE --node N` shows both runs, `compare OLD NEW` names exactly the planted
// figure and counter, and a file that is not a history is refused with one line, untouched.
#include "analysis/history/history_store.hpp"
#include "analysis_fixtures.hpp"
#include "history_fixtures.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

namespace shakedown::analysis {
namespace {

using namespace testing;

struct CommandResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

CommandResult run_analyzer(const TempDir& temp, const std::string& arguments) {
    const auto out = temp.path() / "stdout.txt";
    const auto err = temp.path() / "stderr.txt";
    const std::string command = std::string("'") + SHAKEDOWN_ANALYZE_EXE + "' " + arguments + " >'" + out.string() +
                                "' 2>'" + err.string() + "'";
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(out), read_text(err)};
}

std::size_t lines(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

struct Runs {
    TempDir temp;
    std::filesystem::path before =
        write_history_run(temp.path() / "before", {.run_id = "before", .run_uuid = "uuid-before", .start_utc = 1764480000});
    std::filesystem::path after = write_history_run(
        temp.path() / "after", {.run_id = "after", .run_uuid = "uuid-after", .start_utc = 1764500000, .planted = true});
    std::filesystem::path history = temp.path() / "history.sqlite";
};

TEST(HistoryCli, EveryAnalyzedRunIsAppendedOnceAndTheNodeHistoryShowsBoth) {
    Runs runs;
    const CommandResult first =
        run_analyzer(runs.temp, runs.before.string() + " --no-html --history " + runs.history.string());
    EXPECT_EQ(first.exit_code, 0) << first.out << first.err;
    EXPECT_NE(first.out.find("History: " + runs.history.string() + " (run before added)"), std::string::npos) << first.out;
    const CommandResult second =
        run_analyzer(runs.temp, runs.after.string() + " --no-html --history " + runs.history.string());
    EXPECT_NE(second.out.find("(run after added)"), std::string::npos) << second.out << second.err;
    const CommandResult again =
        run_analyzer(runs.temp, runs.before.string() + " --no-html --history " + runs.history.string());
    EXPECT_NE(again.out.find("(run before replaced: it was in the history already)"), std::string::npos) << again.out;

    // Each value carries its level from the judgement: the planted figure's finding, the others pass.
    {
        HistoryStore store(runs.history, HistoryStore::Access::read);
        const auto stored = store.runs();
        ASSERT_EQ(stored.size(), 2u);
        const RunRecord after = store.read(stored[1]);
        ASSERT_EQ(after.values.size(), 9u);
        for (const MeasuredValue& value : after.values) {
            const bool planted = value.node == planted_node && value.metric == planted_metric;
            EXPECT_EQ(value.level == "pass", !planted) << value.node << " " << value.metric << " " << value.level;
        }
        EXPECT_EQ(store.read(stored[0]).nodes.at(1).verdict, "pass");
    }

    const CommandResult shown =
        run_analyzer(runs.temp, "history " + runs.history.string() + " --node " + planted_node + " --format json");
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    const auto json = nlohmann::json::parse(shown.out);
    ASSERT_EQ(json["runs"].size(), 2u);
    EXPECT_EQ(json["runs"][0]["run_id"], "before");
    EXPECT_EQ(json["runs"][0]["node_verdict"], "pass");
    EXPECT_EQ(json["runs"][1]["run_id"], "after");
    // The risen ECC count WARNs (hidden-fault rule): the node's verdict in that run says so.
    EXPECT_NE(json["runs"][1]["node_verdict"], "pass");
    const auto triad = std::find_if(json["metrics"].begin(), json["metrics"].end(),
                                    [](const nlohmann::json& metric) { return metric["metric"] == planted_metric; });
    ASSERT_NE(triad, json["metrics"].end());
    EXPECT_DOUBLE_EQ((*triad)["runs"][0]["node"].get<double>(), healthy_triad(1));
    EXPECT_DOUBLE_EQ((*triad)["runs"][1]["node"].get<double>(), healthy_triad(1) * planted_slowdown);
    EXPECT_DOUBLE_EQ((*triad)["runs"][1]["fleet_median"].get<double>(), healthy_triad(0));
    int rose = 0;
    for (const auto& counter : json["counters"])
        if (counter["rose"] == true) {
            ++rose;
            EXPECT_EQ(counter["counter"], planted_counter);
        }
    EXPECT_EQ(rose, 1);

    const CommandResult text = run_analyzer(runs.temp, "history " + runs.history.string() + " --node " + planted_node +
                                                           " --metric " + planted_metric);
    EXPECT_EQ(text.exit_code, 0);
    EXPECT_NE(text.out.find("history of node0001: 2 run(s)"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("ROSE GPU-hist-0001 ecc_sbe_volatile"), std::string::npos) << text.out;
    EXPECT_EQ(text.out.find("mpi_pingpong.latency_us"), std::string::npos) << text.out;  // --metric: that one only
}

TEST(HistoryCli, CompareNamesThePlantedFigureAndCounterAndNothingForAHealthyPair) {
    Runs runs;
    const CommandResult planted = run_analyzer(runs.temp, "compare " + runs.before.string() + " " + runs.after.string());
    ASSERT_EQ(planted.exit_code, 0) << planted.err;
    EXPECT_NE(planted.out.find("1 worse, 0 better, 8 same (within 10 %), 0 new, 0 missing; 1 counter(s) rose"),
              std::string::npos)
        << planted.out;
    EXPECT_NE(planted.out.find("node0001 local rank 0 stream.triad_gbs: 7.4 -> 5.92 GB/s  delta -1.48  x0.800"),
              std::string::npos);
    EXPECT_NE(planted.out.find("node0001 GPU-hist-0001 ecc_sbe_volatile: 2 -> 7 (+5)"), std::string::npos);

    const auto json = nlohmann::json::parse(
        run_analyzer(runs.temp, "compare " + runs.before.string() + " " + runs.after.string() + " --format json").out);
    EXPECT_EQ(json["counts"]["worse"], 1);
    EXPECT_EQ(json["counters_rose"].size(), 1u);

    const auto healthy = write_history_run(runs.temp.path() / "again", {.run_id = "again", .run_uuid = "uuid-again"});
    const CommandResult quiet =
        run_analyzer(runs.temp, "compare " + runs.before.string() + " " + healthy.string() + " --format markdown");
    EXPECT_EQ(quiet.exit_code, 0);
    EXPECT_NE(quiet.out.find("0 worse, 0 better, 9 same"), std::string::npos) << quiet.out;
    EXPECT_EQ(quiet.out.find("###"), std::string::npos) << quiet.out;  // no section: nothing changed

    const CommandResult missing =
        run_analyzer(runs.temp, "compare " + runs.before.string() + " " + (runs.temp.path() / "nothing").string());
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_EQ(lines(missing.err), 1u) << missing.err;
    EXPECT_NE(missing.err.find("NEW: "), std::string::npos) << missing.err;
}

TEST(HistoryCli, AFileThatIsNotAHistoryIsRefusedWithOneLineAndLeftUntouched) {
    Runs runs;
    const auto notes = runs.temp.path() / "notes.txt";
    {
        std::ofstream out(notes);
        out << "my notes, not a database\n";
    }
    const CommandResult refused = run_analyzer(runs.temp, runs.before.string() + " --history " + notes.string());
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_EQ(lines(refused.err), 1u) << refused.err;
    EXPECT_NE(refused.err.find("not a shakedown results history"), std::string::npos) << refused.err;
    EXPECT_EQ(read_text(notes), "my notes, not a database\n");
    EXPECT_FALSE(std::filesystem::exists(runs.before / "summary.json"));  // refused before anything was written

    const CommandResult empty = run_analyzer(runs.temp, runs.before.string() + " --history ''");
    EXPECT_EQ(empty.exit_code, 2);
    EXPECT_NE(empty.err.find("--history is empty"), std::string::npos) << empty.err;

    const CommandResult absent =
        run_analyzer(runs.temp, "history " + (runs.temp.path() / "none.sqlite").string() + " --node n");
    EXPECT_EQ(absent.exit_code, 2);
    EXPECT_EQ(lines(absent.err), 1u);
    EXPECT_FALSE(std::filesystem::exists(runs.temp.path() / "none.sqlite"));

    const CommandResult foreign = run_analyzer(runs.temp, "history " + notes.string() + " --node node0001");
    EXPECT_EQ(foreign.exit_code, 2);
    EXPECT_NE(foreign.err.find("not a shakedown results history"), std::string::npos) << foreign.err;
    EXPECT_EQ(read_text(notes), "my notes, not a database\n");
}

}  // namespace
}  // namespace shakedown::analysis
