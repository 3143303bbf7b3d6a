// `compare`'s default tolerance comes from the thresholds the command is given, read only when it
// runs (analysis/cli/compare_command.hpp): a thresholds text that cannot be read is one line and
// exit 2 from the command, not an abort while main() declares the command line. The built-in
// text stays intact: the broken one is a loader handed to add_compare_command.
#include "analysis/cli/compare_command.hpp"
#include "analysis_fixtures.hpp"
#include "core/errors.hpp"
#include "history_fixtures.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace shakedown::analysis::testing {
namespace {

struct Outcome {
    int exit_code = -1;
    std::string out;
    std::string err;
};

// Declares `compare` with `thresholds` on a fresh app, parses `words` and runs it.
Outcome run_compare(std::function<Thresholds()> thresholds, std::vector<std::string> words) {
    CLI::App app{"test"};
    const cli::Command command = cli::add_compare_command(app, std::move(thresholds));
    std::vector<const char*> argv{"shakedown-analyze", "compare"};
    for (const std::string& word : words) argv.push_back(word.c_str());
    app.parse(static_cast<int>(argv.size()), argv.data());
    std::ostringstream out;
    std::ostringstream err;
    Outcome outcome;
    outcome.exit_code = command.run(out, err);
    outcome.out = out.str();
    outcome.err = err.str();
    return outcome;
}

Thresholds unreadable() { throw InputError("default.yaml (built in):3: 'metrics' expected a map"); }

struct Pair {
    TempDir temp;
    std::string before =
        write_history_run(temp.path() / "before", {.run_id = "before", .run_uuid = "uuid-before"}).string();
    std::string after = write_history_run(temp.path() / "after",
                                          {.run_id = "after", .run_uuid = "uuid-after", .start_utc = 1764500000,
                                           .planted = true})
                            .string();
};

TEST(CompareCommand, UnreadableThresholdsAreOneLineAndExit2WhenTheCommandRuns) {
    const Pair runs;
    int calls = 0;
    const Outcome outcome = run_compare(
        [&calls] {
            ++calls;
            return unreadable();
        },
        {runs.before, runs.after});
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(outcome.exit_code, exit_code::bad_input);
    EXPECT_EQ(outcome.err, "shakedown-analyze compare: default.yaml (built in):3: 'metrics' expected a map\n");
    EXPECT_EQ(outcome.out, "");
}

TEST(CompareCommand, DeclaringTheCommandReadsNoThresholds) {
    int calls = 0;
    CLI::App app{"test"};
    EXPECT_NO_THROW(cli::add_compare_command(app, [&calls] {
        ++calls;
        return unreadable();
    }));
    EXPECT_EQ(calls, 0);
}

// --tolerance given: the thresholds are not needed, so unreadable ones cost nothing.
TEST(CompareCommand, AGivenToleranceNeedsNoThresholds) {
    const Pair runs;
    const Outcome outcome = run_compare(unreadable, {runs.before, runs.after, "--tolerance", "0.5"});
    EXPECT_EQ(outcome.exit_code, exit_code::ok) << outcome.err;
    EXPECT_NE(outcome.out.find("0 worse, 0 better, 9 same (within 50 %)"), std::string::npos) << outcome.out;
}

// The healthy path: the built-in thresholds' baseline tolerance (10 %) calls the planted 20 % drop worse.
TEST(CompareCommand, BuiltInThresholdsGiveTheBaselineTolerance) {
    const Pair runs;
    const Outcome outcome = run_compare(&Thresholds::built_in, {runs.before, runs.after});
    EXPECT_EQ(outcome.exit_code, exit_code::ok) << outcome.err;
    EXPECT_NE(outcome.out.find("1 worse, 0 better, 8 same (within 10 %)"), std::string::npos) << outcome.out;
    EXPECT_EQ(outcome.err, "");
}

}  // namespace
}  // namespace shakedown::analysis::testing
