// The shakedown-analyze executable: exit codes and the one clear line on bad input.
#include "analysis_fixtures.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <map>

namespace shakedown::analysis {
namespace {

using testing::healthy_traces;
using testing::read_text;
using testing::TempDir;
using testing::write_run;

struct CommandResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

// Runs the analyzer through the shell with stdout and stderr captured in files.
CommandResult run_analyzer(const TempDir& temp, const std::string& arguments) {
    const auto out = temp.path() / "stdout.txt";
    const auto err = temp.path() / "stderr.txt";
    const std::string command =
        std::string("'") + SHAKEDOWN_ANALYZE_EXE + "' " + arguments + " >'" + out.string() + "' 2>'" + err.string() + "'";
    const int status = std::system(command.c_str());
    CommandResult result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = read_text(out);
    result.err = read_text(err);
    return result;
}

std::size_t line_count(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

TEST(AnalyzeCli, HealthyRunExitsZeroWithTableAndPaths) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(2, 1));
    const CommandResult result = run_analyzer(temp, run.string());
    EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
    EXPECT_NE(result.out.find("NODE"), std::string::npos);
    EXPECT_NE(result.out.find("node0001  1      PASS"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("Run folder: " + run.string()), std::string::npos);
    EXPECT_NE(result.out.find("Summary: " + (run / "summary.json").string()), std::string::npos);
    EXPECT_TRUE(result.err.empty());
}

// The version names the commit as `shakedown --version` does: which analyzer judged a run.
TEST(AnalyzeCli, VersionNamesTheGitCommit) {
    TempDir temp;
    const CommandResult result = run_analyzer(temp, "--version");
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.out.rfind("shakedown-analyze ", 0), 0u) << result.out;
    EXPECT_NE(result.out.find(" (git "), std::string::npos) << result.out;
    EXPECT_EQ(line_count(result.out), 1u) << result.out;
}

TEST(AnalyzeCli, QuietPrintsOnlyTheVerdictAndPaths) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(2, 1));
    const CommandResult result = run_analyzer(temp, run.string() + " --quiet");
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(line_count(result.out), 3u) << result.out;
}

TEST(AnalyzeCli, FailureExitsOne) {
    TempDir temp;
    auto traces = healthy_traces(2, 1);
    testing::metric_named(traces[0], "stream.triad_gbs").value = 2.0;
    const auto run = write_run(temp.path() / "run", traces);
    const CommandResult result = run_analyzer(temp, run.string());
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_NE(result.out.find("Failures (1):"), std::string::npos) << result.out;
}

TEST(AnalyzeCli, MissingRankExitsThreeNamingIt) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(3, 1));
    std::filesystem::remove(run / "rank-00002.h5");
    const CommandResult result = run_analyzer(temp, run.string());
    EXPECT_EQ(result.exit_code, 3);
    EXPECT_NE(result.out.find("rank 2 (node0002): trace missing (rank-00002.h5)"), std::string::npos) << result.out;
}

TEST(AnalyzeCli, FolderWithoutRunJsonIsOneLineAndExitTwo) {
    TempDir temp;
    const CommandResult result = run_analyzer(temp, temp.path().string());
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err, "shakedown-analyze: " + temp.path().string() +
                              " is not a shakedown run folder: run.json is missing or unreadable\n");
    EXPECT_TRUE(result.out.empty());
}

TEST(AnalyzeCli, AnInfiniteNanOrHugePriceIsOneLineAndExitTwo) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(1, 1));
    for (const char* price : {"inf", "nan", "0", "1e308"}) {  // 1e308 made the fleet's price "inf"
        const CommandResult result = run_analyzer(temp, run.string() + " --price-per-node-hour " + price);
        EXPECT_EQ(result.exit_code, 2) << price;
        EXPECT_EQ(result.err.rfind("shakedown-analyze: a node price must be a number above 0 and up to 1e+09, got ", 0), 0u)
            << result.err;
        EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    }
}

TEST(AnalyzeCli, TheOwnershipFileGivesRentAgainstBuyAndABadOneIsOneLine) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(1, 1));
    std::ofstream(temp.path() / "own.yaml") << "purchase_per_node: 300000\ndepreciation_months: 36\nhosting_per_node_month: 1000\n"
                                               "pue: 1.25\nenergy_per_kwh: 0.2\nnode_power_w: 10000\n";
    std::ofstream(temp.path() / "bad.yaml") << "purchase_per_node: 1\n";
    const auto good = run_analyzer(temp, run.string() + " --no-html --price-per-node-hour 40 --ownership " +
                                                      (temp.path() / "own.yaml").string());
    EXPECT_EQ(good.exit_code, 0) << good.err;
    EXPECT_NE(good.out.find("owning a node: 15.3 per hour at full use"), std::string::npos) << good.out;
    const auto summary = nlohmann::json::parse(read_text(run / "summary.json"));
    EXPECT_NEAR(summary["rent_or_buy"]["break_even_month"].get<double>(), 300000.0 / (730 * 37.5 - 1000), 1e-9);

    const auto bad = run_analyzer(temp, run.string() + " --ownership " + (temp.path() / "bad.yaml").string());
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("'depreciation_months' is missing"), std::string::npos) << bad.err;
    EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
}

TEST(AnalyzeCli, AnEnergyPriceThatIsNoPriceIsOneLineAndExitTwo) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(1, 1));
    for (const char* price : {"inf", "nan", "0", "-0.2", "2e6"}) {
        const CommandResult result = run_analyzer(temp, run.string() + " --energy-price-per-kwh " + price);
        EXPECT_EQ(result.exit_code, 2) << price;
        EXPECT_EQ(result.err.rfind("shakedown-analyze: an energy price must be a number above 0 and up to 1e+06 per kWh, got ", 0),
                  0u)
            << result.err;
        EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
        EXPECT_FALSE(std::filesystem::exists(run / "summary.json")) << price;
    }
}

// Text that is not UTF-8 ended the analyzer with an abort (exit 134, nothing written) when it
// reached summary.json: here a run folder named with a Latin-1 byte, as `cp -a RUN café` gives in
// a Latin-1 shell. The analysis is made, and summary.json is UTF-8 with U+FFFD for the byte.
TEST(AnalyzeCli, ARunFolderNamedWithALatin1ByteIsAnalysedAndItsSummaryIsUtf8) {
    TempDir temp;
    const auto run = write_run(temp.path() / "caf\xe9", healthy_traces(2, 1));
    const CommandResult result = run_analyzer(temp, "'" + run.string() + "'");
    EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
    const std::string summary = read_text(run / "summary.json");
    const nlohmann::json parsed = nlohmann::json::parse(summary, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(parsed.is_discarded()) << summary.substr(0, 400);
    EXPECT_EQ(summary.find('\xe9'), std::string::npos);
    EXPECT_TRUE(std::filesystem::exists(run / "junit.xml"));
}

// run.json is the run's identity: what the JSON library lets through but the run cannot mean is
// one line and exit 2, not a verdict and not a crash. A key given twice ("aborted" then "complete"
// read as complete: PASS), a time past year 9999 (the calendar conversion threw: exit 134), and
// 70,000 nested lists (writing them back overflowed the stack: SIGSEGV).
TEST(AnalyzeCli, RunJsonWithADuplicateKeyAnImpossibleTimeOrDeepNestingIsOneLineAndExitTwo) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(2, 1));
    const std::string original = read_text(run / "run.json");
    const auto replaced = [&](const std::string& from, const std::string& to) {
        std::string text = original;
        const std::size_t at = text.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        return text.replace(at, from.size(), to);
    };
    const nlohmann::json document = nlohmann::json::parse(original);
    const std::string status = "\"status\": " + document.at("status").dump();
    const std::map<std::string, std::pair<std::string, std::string>> cases{
        {"the key \"status\" is given twice in one object", {status, "\"status\": \"aborted\", " + status}},
        {"start_utc: 1e+18 is not a time (0..253402300799 s since 1970)",
         {"\"start_utc\": ", "\"start_utc\": 1e18, \"was_start\": "}},
        {"nested deeper than 64 levels",
         {"\"status\": ", "\"deep\": " + std::string(70000, '[') + std::string(70000, ']') + ", \"status\": "}},
    };
    for (const auto& [message, edit] : cases) {
        {
            std::ofstream out(run / "run.json", std::ios::trunc);
            out << replaced(edit.first, edit.second);
        }
        const CommandResult result = run_analyzer(temp, run.string());
        EXPECT_EQ(result.exit_code, 2) << message << result.out;
        EXPECT_NE(result.err.find(message), std::string::npos) << result.err;
        EXPECT_EQ(line_count(result.err), 1u) << result.err;
        EXPECT_FALSE(std::filesystem::exists(run / "summary.json")) << message;
    }
}

// `--summary ''` (an unset shell variable) wrote RUN/summary.json as if it had not been given.
TEST(AnalyzeCli, AnEmptyPathOptionIsOneLineAndExitTwo) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(1, 1));
    for (const char* option : {"--summary", "--junit", "--html", "--drain", "--thresholds", "--calibrated", "--baseline"}) {
        const CommandResult result = run_analyzer(temp, run.string() + " " + option + " ''");
        EXPECT_EQ(result.exit_code, 2) << option;
        EXPECT_EQ(result.err, std::string("shakedown-analyze: ") + option + " is empty: give a path, or leave " + option + " out\n");
    }
    EXPECT_FALSE(std::filesystem::exists(run / "summary.json"));
}

// The calibrate command through the executable: runs without a GPU are refused with one line,
// nothing written; a calibration file that does not exist is one line before any trace is read.
TEST(AnalyzeCli, CalibrateRefusesRunsWithoutAGpuAndAMissingCalibrationIsOneLine) {
    TempDir temp;
    std::string runs;
    for (int i = 0; i < 3; ++i)
        runs += " " + write_run(temp.path() / ("golden-" + std::to_string(i)), healthy_traces(2, 1)).string();
    const auto output = temp.path() / "site.yaml";
    const CommandResult refused = run_analyzer(temp, "calibrate" + runs + " --output " + output.string());
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_NE(refused.err.find("rank 0 recorded no GPU: a calibration is a GPU part's figures"), std::string::npos)
        << refused.err;
    EXPECT_EQ(line_count(refused.err), 1u);
    EXPECT_FALSE(std::filesystem::exists(output));
    const auto run = write_run(temp.path() / "run", healthy_traces(1, 1));
    const CommandResult missing = run_analyzer(temp, run.string() + " --calibrated " + output.string());
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("cannot read the calibration file"), std::string::npos) << missing.err;
    EXPECT_EQ(line_count(missing.err), 1u);
    EXPECT_FALSE(std::filesystem::exists(run / "summary.json"));
}

TEST(AnalyzeCli, MalformedThresholdsIsOneLineWithFileAndLine) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(1, 1));
    const auto thresholds = temp.path() / "bad.yaml";
    std::ofstream(thresholds) << "metrics:\n  stream.triad_gbs: {fail_below: 3\n";
    const CommandResult result = run_analyzer(temp, run.string() + " --thresholds " + thresholds.string());
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(line_count(result.err), 1u) << result.err;
    EXPECT_EQ(result.err.rfind("shakedown-analyze: " + thresholds.string() + ":", 0), 0u) << result.err;
    EXPECT_NE(result.err.find("malformed YAML"), std::string::npos) << result.err;
}

TEST(AnalyzeCli, UnknownThresholdsKeyIsOneLine) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(1, 1));
    const auto thresholds = temp.path() / "typo.yaml";
    std::ofstream(thresholds) << "metrics:\n  stream.triad_gbs:\n    fraction_of_nominal: {warn: 0.8, fial: 0.5}\n";
    const CommandResult result = run_analyzer(temp, run.string() + " --thresholds " + thresholds.string());
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err, "shakedown-analyze: " + thresholds.string() +
                              ":3: stream.triad_gbs.fraction_of_nominal: unknown key 'fial' (expected warn, fail)\n");
}

// A key that names no declared metric would judge nothing: refused, naming it and the nearest names.
TEST(AnalyzeCli, MisspeltMetricInTheThresholdsIsExitTwoNamingIt) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(1, 1));
    const auto thresholds = temp.path() / "misspelt.yaml";
    std::ofstream(thresholds) << "metrics:\n  \"stream.*_gbs\": {}\n  stream.tirad_gbs:\n    fail_below: 3\n";
    const CommandResult result = run_analyzer(temp, run.string() + " --thresholds " + thresholds.string());
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err, "shakedown-analyze: " + thresholds.string() +
                              ":4: 'stream.tirad_gbs' matches no metric any test declares (nearest: stream.triad_gbs, "
                              "stream.add_gbs, stream.copy_gbs)\n");
    EXPECT_FALSE(std::filesystem::exists(run / "summary.json")) << "refused before anything was written";
}

TEST(AnalyzeCli, UsageErrorsAreOneLineAndExitTwo) {
    TempDir temp;
    CommandResult result = run_analyzer(temp, "");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(line_count(result.err), 1u) << result.err;
    result = run_analyzer(temp, temp.path().string() + " --no-such-option");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(line_count(result.err), 1u) << result.err;
}

// Subcommands sit beside the default `RUN [options]` form: a subcommand name is taken as the
// command, anything else as RUN.
TEST(AnalyzeCli, ExportIsASubcommandBesideTheRunForm) {
    TempDir temp;
    CommandResult result = run_analyzer(temp, "export --help");
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.out.find("--format"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("openmetrics"), std::string::npos) << result.out;
    EXPECT_EQ(result.out.find("--drain-apply"), std::string::npos) << "the export help, not the main one";

    result = run_analyzer(temp, "--help");
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_NE(result.out.find("export"), std::string::npos) << result.out;

    const auto run = write_run(temp.path() / "run", healthy_traces(1, 1));
    result = run_analyzer(temp, "export " + run.string() + " --format xml");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(line_count(result.err), 1u) << result.err;
    EXPECT_NE(result.err.find("--format"), std::string::npos) << result.err;
    EXPECT_FALSE(std::filesystem::exists(run / "summary.json")) << "export is not the analysis";

    // RUN is what the bare form needs: without it (and without a command) one line, exit 2.
    result = run_analyzer(temp, "--quiet");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err, "shakedown-analyze: RUN is required: give a run folder, or a command (see --help)\n");

    // The old form is unchanged, and a run folder is never taken for a command.
    result = run_analyzer(temp, run.string() + " --quiet --no-html");
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(std::filesystem::exists(run / "summary.json"));
}

// --print-thresholds prints YAML that --thresholds accepts, judging exactly as the built-in ones do.
TEST(AnalyzeCli, PrintedThresholdsFedBackGiveTheSameVerdict) {
    TempDir temp;
    CommandResult printed = run_analyzer(temp, "--print-thresholds");
    ASSERT_EQ(printed.exit_code, 0) << printed.err;
    EXPECT_NE(printed.out.find("stream.triad_gbs:"), std::string::npos);
    EXPECT_NE(printed.out.find("baseline:"), std::string::npos) << "the settings too";
    const auto file = temp.path() / "printed.yaml";
    std::ofstream(file) << printed.out;

    auto traces = healthy_traces(3, 1);
    testing::metric_named(traces[1], "stream.triad_gbs").value = 4.1;   // 0.52 of nominal: FAIL
    testing::metric_named(traces[2], "stream.triad_gbs").value = 6.0;   // 0.76 of nominal: WARN
    const auto run = write_run(temp.path() / "run", traces);
    const auto built_in_summary = temp.path() / "built_in.json";
    const auto printed_summary = temp.path() / "printed.json";
    const CommandResult built_in = run_analyzer(temp, run.string() + " --no-html --summary " + built_in_summary.string());
    const CommandResult fed_back = run_analyzer(
        temp, run.string() + " --no-html --thresholds " + file.string() + " --summary " + printed_summary.string());
    EXPECT_EQ(built_in.exit_code, 1) << built_in.err;
    EXPECT_EQ(fed_back.exit_code, built_in.exit_code) << fed_back.err;
    const auto a = nlohmann::json::parse(read_text(built_in_summary));
    const auto b = nlohmann::json::parse(read_text(printed_summary));
    EXPECT_EQ(a["verdict"], "fail");
    EXPECT_EQ(b["verdict"], a["verdict"]);
    ASSERT_EQ(b["nodes"].size(), 3u);
    for (std::size_t node = 0; node < 3; ++node) {
        EXPECT_EQ(b["nodes"][node]["verdict"], a["nodes"][node]["verdict"]) << node;
        ASSERT_EQ(b["nodes"][node]["findings"].size(), a["nodes"][node]["findings"].size()) << node;
        for (std::size_t i = 0; i < a["nodes"][node]["findings"].size(); ++i) {
            EXPECT_EQ(b["nodes"][node]["findings"][i]["reason"], a["nodes"][node]["findings"][i]["reason"]);
            EXPECT_EQ(b["nodes"][node]["findings"][i]["bound"], a["nodes"][node]["findings"][i]["bound"]);
        }
    }
    EXPECT_EQ(a["nodes"][1]["verdict"], "fail");
    EXPECT_EQ(a["nodes"][2]["verdict"], "warn");
    EXPECT_EQ(a["nodes"][0]["verdict"], "pass");
}

TEST(AnalyzeCli, UnwritableSummaryIsExitTwoAfterTheReport) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(1, 1));
    const CommandResult result = run_analyzer(temp, run.string() + " --summary /nonexistent-dir/summary.json");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.out.find("Verdict: PASS"), std::string::npos);
    EXPECT_EQ(result.err.rfind("shakedown-analyze: cannot write /nonexistent-dir/summary.json: ", 0), 0u) << result.err;
    EXPECT_EQ(line_count(result.err), 1u);
}

TEST(AnalyzeCli, SummaryPathOptionWritesThere) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(1, 1));
    const auto elsewhere = temp.path() / "elsewhere.json";
    const CommandResult result = run_analyzer(temp, run.string() + " --summary " + elsewhere.string());
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_TRUE(std::filesystem::exists(elsewhere));
    EXPECT_FALSE(std::filesystem::exists(run / "summary.json"));
}

// drain.txt is always written and never run, unless --drain-apply: then each line runs as argv
// (a fake scontrol first in PATH records what it got).
TEST(AnalyzeCli, DrainListIsRunOnlyWithDrainApply) {
    TempDir temp;
    auto traces = healthy_traces(2, 1);
    testing::metric_named(traces[1], "stream.triad_gbs").value = 2.0;
    const auto run = write_run(temp.path() / "run", traces);
    const auto bin = temp.path() / "bin";
    std::filesystem::create_directories(bin);
    const auto log = temp.path() / "scontrol.log";
    std::ofstream(bin / "scontrol") << "#!/bin/sh\nprintf '%s|' \"$@\" >> '" << log.string() << "'\necho >> '"
                                   << log.string() << "'\n";
    std::filesystem::permissions(bin / "scontrol", std::filesystem::perms::owner_all);
    const std::string path = "PATH='" + bin.string() + "':\"$PATH\" ";

    // A slow figure measured once drains nothing; measured again (the same traces as a
    // confirmation run) it does.
    CommandResult result = run_analyzer(temp, run.string() + " --quiet");
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_EQ(read_text(run / "drain.txt").find("NodeName="), std::string::npos) << read_text(run / "drain.txt");
    const auto again = write_run(temp.path() / "again", traces);
    const std::string confirmed = " --confirmation " + again.string();
    result = run_analyzer(temp, run.string() + confirmed + " --quiet");  // the fake scontrol is not in PATH here
    EXPECT_EQ(result.exit_code, 1);
    const std::string drain = read_text(run / "drain.txt");
    EXPECT_NE(drain.find("scontrol update NodeName=node0001 State=DRAIN Reason=\"shakedown: stream: stream.triad_gbs 2 GB/s"),
              std::string::npos) << drain;
    EXPECT_EQ(drain.find("NodeName=node0000"), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(log));

    const std::string command = std::string("env ") + path + "'" + SHAKEDOWN_ANALYZE_EXE + "' " + run.string() +
                                confirmed + " --drain-apply > '" + (temp.path() / "out.txt").string() + "' 2>&1";
    const int status = std::system(command.c_str());
    EXPECT_EQ(WEXITSTATUS(status), 1);
    const std::string calls = read_text(log);
    EXPECT_EQ(calls.rfind("update|NodeName=node0001|State=DRAIN|Reason=shakedown: stream: stream.triad_gbs 2 GB/s", 0), 0u)
        << calls;
    EXPECT_EQ(std::count(calls.begin(), calls.end(), '\n'), 1);
    EXPECT_NE(read_text(temp.path() / "out.txt").find("drain node0001: done"), std::string::npos);
}

}  // namespace
}  // namespace shakedown::analysis
