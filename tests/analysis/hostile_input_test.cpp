// Hostile and broken run folders: each must give one clear line and a non-zero exit,
// or a rank marked as unreadable, never a crash, a hang or a verdict on made-up figures.
#include "analysis/analyzer.hpp"
#include "analysis/load/run_loader.hpp"
#include "analysis/load/run_manifest.hpp"
#include "analysis_fixtures.hpp"
#include "core/config.hpp"
#include "core/errors.hpp"
#include "core/input_limits.hpp"
#include "core/registry.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>

namespace shakedown::analysis {
namespace {

using testing::healthy_traces;
using testing::read_text;
using testing::TempDir;
using testing::write_run;

struct Outcome {
    int exit_code = 0;
    std::string out;
    std::string err;
};

Outcome analyze_folder(const std::filesystem::path& run) {
    AnalyzeOptions options;
    options.run_dir = run;
    options.write_html = false;
    std::ostringstream out;
    std::ostringstream err;
    const int code = analyze(options, out, err);
    return {code, out.str(), err.str()};
}

std::string manifest_error(const std::filesystem::path& run) {
    try {
        (void)read_run_manifest(run);
    } catch (const InputError& error) {
        return error.what();
    }
    return "no error";
}

// Rewrites one key of a run folder's run.json.
void edit_run_json(const std::filesystem::path& run, const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json document = nlohmann::json::parse(read_text(run / "run.json"));
    edit(document);
    std::ofstream(run / "run.json", std::ios::trunc) << document.dump(2);
}

// --- integer and size bounds -------------------------------------------------------------

// 4294967298 was read as 2 (a PASS for a run of 2 ranks); 2147483647 ended in bad_alloc.
TEST(HostileInput, AbsurdWorldSizeIsBadInputNamingTheLimit) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(2, 2));
    const std::string prefix = "shakedown-analyze: " + run.string() + " is not a shakedown run folder: run.json: ";
    for (const long long world_size : {4294967298LL, 2147483647LL, 1048577LL}) {
        SCOPED_TRACE(world_size);
        edit_run_json(run, [&](nlohmann::json& document) { document["world_size"] = world_size; });
        const Outcome outcome = analyze_folder(run);
        EXPECT_EQ(outcome.exit_code, 2);
        EXPECT_EQ(outcome.err, prefix + "world_size: " + std::to_string(world_size) + " is outside 1..1048576\n");
    }
}

TEST(HostileInput, RunJsonLargerThanItsLimitIsRefusedUnread) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(1, 1));
    std::filesystem::resize_file(run / "run.json", (std::uintmax_t{512} << 20) + 1);  // sparse
    EXPECT_EQ(manifest_error(run), run.string() + " is not a shakedown run folder: run.json: too large (536870913 "
                                                  "bytes; at most 536870912)");
}

// run.json must be a regular file, checked before it is opened: a folder named run.json ended in
// an uncaught ios_failure, a FIFO named run.json hung the analyzer.
TEST(HostileInput, RunJsonThatIsNotARegularFileIsBadInputWithoutOpeningIt) {
    TempDir temp;
    const auto run = temp.path() / "run";
    std::filesystem::create_directories(run / "run.json");
    const std::string prefix = run.string() + " is not a shakedown run folder: run.json: ";
    EXPECT_EQ(manifest_error(run), prefix + "not a regular file (a directory)");
    Outcome outcome = analyze_folder(run);
    EXPECT_EQ(outcome.exit_code, 2);
    EXPECT_EQ(outcome.err, "shakedown-analyze: " + prefix + "not a regular file (a directory)\n");

    std::filesystem::remove(run / "run.json");
    ASSERT_EQ(::mkfifo((run / "run.json").c_str(), 0600), 0);
    EXPECT_EQ(manifest_error(run), prefix + "not a regular file (a FIFO)");
    outcome = analyze_folder(run);
    EXPECT_EQ(outcome.exit_code, 2);
    EXPECT_EQ(outcome.err, "shakedown-analyze: " + prefix + "not a regular file (a FIFO)\n");
}

// A test's seconds are bounded like the watchdog's: a duration of 1e17 s was accepted and then
// overflowed the clock arithmetic of the test that used it. Every declared parameter whose name
// ends in _s has an upper bound no larger than max_deadline_s.
TEST(HostileInput, EveryDeclaredSecondsParameterHasAnUpperBound) {
    int checked = 0;
    for (const auto& test : Registry::instance().tests())
        for (const ParamSpec& spec : test->parameters()) {
            if (!spec.name.ends_with("_s")) continue;
            SCOPED_TRACE(std::string(test->key()) + "." + spec.name);
            ++checked;
            ASSERT_TRUE(spec.most.has_value());
            EXPECT_LE(*spec.most, input_limits::max_deadline_s);
        }
    EXPECT_GE(checked, 8);
    try {
        (void)parse_config_text("params: {burnin: {duration_s: 1e17}}\n", "c.yaml", {}, Registry::instance());
        ADD_FAILURE() << "accepted";
    } catch (const InputError& error) {
        EXPECT_STREQ(error.what(), "c.yaml:1: 'params.burnin.duration_s' must be above 0 and at most 2592000, got 1e+17");
    }
}

// --- types ------------------------------------------------------------------------------

// A string `tests` was skipped as if absent, which turned off the "no result recorded" check.
TEST(HostileInput, RunJsonMemberOfTheWrongTypeIsBadInputNamingIt) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(2, 2));
    const std::string prefix = "shakedown-analyze: " + run.string() + " is not a shakedown run folder: run.json: ";
    edit_run_json(run, [](nlohmann::json& document) { document["tests"] = "stream"; });
    Outcome outcome = analyze_folder(run);
    EXPECT_EQ(outcome.exit_code, 2);
    EXPECT_EQ(outcome.err, prefix + "tests: expected a list of strings\n");
    edit_run_json(run, [](nlohmann::json& document) {
        document["tests"] = {"stream", "mpi_pingpong"};
        document["ranks"][1]["local_rank"] = "1";
    });
    outcome = analyze_folder(run);
    EXPECT_EQ(outcome.exit_code, 2);
    EXPECT_EQ(outcome.err, prefix + "ranks[1].local_rank: expected an integer\n");
}

// --- implausible values ------------------------------------------------------------------

// What load_run makes of a run whose rank 1 carries `damage` (the writer records any figure).
RankRecord rank_one_after(const std::function<void(Trace&)>& damage, const TempDir& temp) {
    std::vector<Trace> traces = healthy_traces(2, 2);
    damage(traces[1]);
    const auto run = write_run(temp.path() / "run", traces);
    const LoadedRun loaded = load_run(run);
    EXPECT_EQ(loaded.ranks.at(0).problem, RankProblem::none) << loaded.ranks.at(0).problem_text;
    return loaded.ranks.at(1);
}

// A negative bandwidth, a NaN, the same metric twice in one test or a unit or direction other than
// the declared one passed the analyzer (judged as if measured): the rank is now corrupt data, unreadable, and the run incomplete (exit 3).
TEST(HostileInput, ImplausibleFiguresMakeTheRankCorruptNotJudged) {
    struct Case {
        const char* name;
        std::function<void(Trace&)> damage;
        std::string problem;
    };
    const std::vector<Case> cases = {
        {"negative rate", [](Trace& t) { testing::metric_named(t, "stream.triad_gbs").value = -7.5; },
         "stream.triad_gbs = -7.5 GB/s (a rate or a time is never negative)"},
        {"negative latency", [](Trace& t) { testing::metric_named(t, "mpi_pingpong.latency_us").value = -1.9; },
         "mpi_pingpong.latency_us = -1.9 us (a rate or a time is never negative)"},
        {"twice",
         [](Trace& t) {
             TestResult& stream = testing::test_named(t, "stream");
             stream.metrics.push_back(stream.metrics.front());
             stream.metrics.back().value = 99.0;
         },
         "test stream records metric stream.triad_gbs twice"},
        // The trace's unit and direction must be the declaration's: edited, they turned a figure
        // far below nominal into a PASS and let a negative rate past the sign check.
        {"direction edited", [](Trace& t) { testing::metric_named(t, "stream.triad_gbs").better = Better::lower; },
         "stream.triad_gbs is recorded as lower is better, but stream declares higher"},
        {"unit edited",
         [](Trace& t) {
             Metric& triad = testing::metric_named(t, "stream.triad_gbs");
             triad.unit = "GB/S";
             triad.value = -5.0;
         },
         "stream.triad_gbs is recorded in 'GB/S', but stream declares it in 'GB/s'"},
        {"unit emptied", [](Trace& t) { testing::metric_named(t, "stream.triad_gbs").unit = ""; },
         "stream.triad_gbs is recorded in '', but stream declares it in 'GB/s'"},
        // A failing figure renamed to a name the test does not declare left nothing to judge: PASS.
        {"name the test does not declare",
         [](Trace& t) { testing::metric_named(t, "stream.triad_gbs").name = "stream.triaz_gbs"; },
         "stream records stream.triaz_gbs, which stream does not declare"},
    };
    for (const Case& item : cases) {
        SCOPED_TRACE(item.name);
        TempDir temp;
        const RankRecord rank = rank_one_after(item.damage, temp);
        EXPECT_EQ(rank.problem, RankProblem::unreadable);
        EXPECT_EQ(rank.problem_text, "rank 1 (node0000): corrupt data in rank-00001.h5: " + item.problem);
        EXPECT_FALSE(rank.trace.has_value());
        const Outcome outcome = analyze_folder(temp.path() / "run");
        EXPECT_EQ(outcome.exit_code, 3);
        EXPECT_NE(outcome.out.find(rank.problem_text), std::string::npos) << outcome.out;
    }
    // A trace of an older schema may hold a figure since renamed: left to the rules, not corrupt.
    {
        TempDir temp;
        const RankRecord rank = rank_one_after(
            [](Trace& t) {
                t.header.schema_version = "1.1";
                testing::metric_named(t, "stream.triad_gbs").name = "stream.triad_old_gbs";
            },
            temp);
        EXPECT_EQ(rank.problem, RankProblem::none) << rank.problem_text;
    }
    // A NaN is what a test records when its measurement produced no number: judged, a FAIL
    // saying so, the rank's other results kept.
    for (const double value : {std::nan(""), std::numeric_limits<double>::infinity()}) {
        TempDir temp;
        const RankRecord rank = rank_one_after([&](Trace& t) { testing::metric_named(t, "stream.triad_gbs").value = value; }, temp);
        EXPECT_EQ(rank.problem, RankProblem::none);
        const Outcome outcome = analyze_folder(temp.path() / "run");
        EXPECT_EQ(outcome.exit_code, 1) << outcome.out;
        EXPECT_NE(outcome.out.find("the measurement produced no number"), std::string::npos) << outcome.out;
    }
    // A negative figure of a unit that may be negative is not corrupt, nor is a healthy run.
    TempDir temp;
    EXPECT_EQ(rank_one_after([](Trace&) {}, temp).problem, RankProblem::none);
    TempDir other;
    const auto negative_ratio = [](Trace& t) {
        TestResult cg;
        cg.key = "cg_fp64";
        cg.status = Status::pass;
        cg.metrics.push_back(testing::declared_metric("cg_fp64", "cg_fp64.allreduce_time_share", -0.1));
        t.tests.push_back(cg);
    };
    EXPECT_EQ(rank_one_after(negative_ratio, other).problem, RankProblem::none);
}

// --- outputs ----------------------------------------------------------------------------

// A symbolic link, a FIFO or a device given as --summary/--junit/--html/--drain was replaced by
// the atomic rename (as root that can replace a device under /dev). Such a target is now refused
// with one line, exit 2, left as it was, and no output is written at all; a regular file is still
// replaced.
TEST(HostileInput, OutputThatIsNotARegularFileIsRefusedAndLeftAsItWas) {
    using Target = std::optional<std::filesystem::path> AnalyzeOptions::*;
    const std::vector<std::pair<const char*, Target>> flags = {{"--summary", &AnalyzeOptions::summary_path},
                                                               {"--junit", &AnalyzeOptions::junit_path},
                                                               {"--html", &AnalyzeOptions::html_path},
                                                               {"--drain", &AnalyzeOptions::drain_path}};
    for (const auto& [flag, member] : flags) {
        TempDir temp;
        const auto run = write_run(temp.path() / "run", healthy_traces(2, 2));
        const auto victim = temp.path() / "victim.txt";
        std::ofstream(victim) << "keep me\n";
        const auto link = temp.path() / "link";
        std::filesystem::create_symlink(victim, link);
        const auto fifo = temp.path() / "fifo";
        ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
        std::vector<std::pair<std::filesystem::path, std::string>> targets = {
            {link, "it is a symbolic link; not replaced"}, {fifo, "not a regular file (a FIFO); not replaced"}};
        const auto device = temp.path() / "null";  // a /dev/null of our own, where we may make one
        if (::mknod(device.c_str(), S_IFCHR | 0600, makedev(1, 3)) == 0)
            targets.emplace_back(device, "not a regular file (a character device); not replaced");
        for (const auto& [target, why] : targets) {
            SCOPED_TRACE(std::string(flag) + " " + target.string());
            AnalyzeOptions options;
            options.run_dir = run;
            options.write_html = true;
            options.*member = target;
            std::ostringstream out;
            std::ostringstream err;
            EXPECT_EQ(analyze(options, out, err), 2);
            EXPECT_EQ(err.str(), "shakedown-analyze: cannot write " + target.string() + ": " + why + "\n");
            EXPECT_FALSE(std::filesystem::exists(run / "summary.json"));
            EXPECT_FALSE(std::filesystem::exists(run / "drain.txt"));
        }
        EXPECT_TRUE(std::filesystem::is_symlink(link));
        EXPECT_EQ(read_text(victim), "keep me\n");
        EXPECT_TRUE(std::filesystem::is_fifo(fifo));
        if (std::filesystem::exists(std::filesystem::symlink_status(device)))
            EXPECT_TRUE(std::filesystem::is_character_file(device));
    }
    // A regular file is replaced, and no temporary file stays beside it.
    TempDir temp;
    const auto run = write_run(temp.path() / "run", healthy_traces(2, 2));
    const auto old_summary = temp.path() / "old.json";
    std::ofstream(old_summary) << "old\n";
    AnalyzeOptions options;
    options.run_dir = run;
    options.write_html = false;
    options.summary_path = old_summary;
    std::ostringstream out;
    std::ostringstream err;
    EXPECT_EQ(analyze(options, out, err), 0) << err.str();
    EXPECT_EQ(nlohmann::json::parse(read_text(old_summary)).at("verdict"), "pass");
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(temp.path())) names.push_back(entry.path().filename());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"old.json", "run"}));
}

// --- terminal injection -----------------------------------------------------------------

// Control characters other than a newline, and a carriage return anywhere.
bool holds_control(const std::string& text, bool allow_newline) {
    return std::any_of(text.begin(), text.end(), [&](char c) {
        const auto byte = static_cast<unsigned char>(c);
        return (byte < 0x20 && !(allow_newline && (c == '\n' || c == '\t'))) || byte == 0x7F || c == '\r';
    });
}

// A failure reason or a node name from a trace was printed raw: escape codes and carriage returns
// passed through, so a crafted trace printed a fake "Verdict: PASS" over the real one. Every string
// from a file is now shown with its control characters as \xNN in the terminal and in Markdown,
// and never raw in junit.xml or report.html.
TEST(HostileInput, ControlCharactersFromATraceNeverReachTheTerminalOrAReport) {
    TempDir temp;
    std::vector<Trace> traces = healthy_traces(2, 1);
    const std::string fake = "\r\x1b[2K\x1b[1AVerdict: PASS: 2 node(s): 2 pass, 0 warn, 0 fail, 0 incomplete\n\xc2\x9b";
    TestResult& stream = testing::test_named(traces[1], "stream");
    stream.status = Status::fail;
    stream.reason = "checksum mismatch" + fake;
    traces[1].header.node = "node\x1b]0;owned\x07" "0001";
    const auto run = write_run(temp.path() / "run", traces);
    AnalyzeOptions options;
    options.run_dir = run;
    for (const ReportFormat format : {ReportFormat::text, ReportFormat::markdown}) {
        options.format = format;
        std::ostringstream out;
        std::ostringstream err;
        EXPECT_EQ(analyze(options, out, err), 2);  // the node name is no Slurm name: not drained, to fix
        SCOPED_TRACE(out.str() + err.str());
        EXPECT_FALSE(holds_control(out.str(), true));
        EXPECT_FALSE(holds_control(err.str(), true));
        EXPECT_EQ(out.str().find("\xc2\x9b"), std::string::npos);
        EXPECT_EQ(out.str().find("\nVerdict: PASS"), std::string::npos);
        EXPECT_EQ(out.str().find("\n\\x1b"), std::string::npos);
        const std::string shown = format == ReportFormat::text ? "checksum mismatch\\x0d\\x1b[2K\\x1b[1AVerdict: PASS"
                                                               : "checksum mismatch \\\\x1b\\[2K\\\\x1b\\[1AVerdict: PASS";
        EXPECT_NE(out.str().find(shown), std::string::npos);
        EXPECT_NE(out.str().find(format == ReportFormat::text ? "\\xc2\\x9b" : "\\\\xc2\\\\x9b"), std::string::npos);
        if (format == ReportFormat::text) {
            EXPECT_NE(out.str().find("node\\x1b]0;owned\\x070001"), std::string::npos);
            EXPECT_EQ(err.str(), "shakedown-analyze: node 'node\\x1b]0;owned\\x070001' fails but is not left in drain.txt: "
                                 "not a Slurm node name (letters, digits, '-', '_', '.')\n");
        }
    }
    for (const char* name : {"junit.xml", "report.html"}) {
        SCOPED_TRACE(name);
        const std::string written = read_text(run / name);
        EXPECT_FALSE(holds_control(written, true));
        EXPECT_EQ(written.find("\xc2\x9b"), std::string::npos);
        EXPECT_NE(written.find("checksum mismatch&#13;"), std::string::npos);
    }
}

// --- run identity -----------------------------------------------------------------------

// The problem load_run finds with rank 1 of a run of 2 (one rank per node, run.json's run_uuid
// "this-run") whose traces `edit` changed, after `edit_json` changed run.json.
RankRecord rank_one_of(const std::function<void(std::vector<Trace>&)>& edit, const TempDir& temp,
                       const std::function<void(nlohmann::json&)>& edit_json = [](nlohmann::json&) {}) {
    std::vector<Trace> traces = healthy_traces(2, 1);
    for (Trace& trace : traces) trace.header.run_uuid = "this-run";
    edit(traces);
    const auto run = write_run(temp.path() / "run", traces);
    edit_run_json(run, [&](nlohmann::json& document) {
        document["run_uuid"] = "this-run";
        edit_json(document);
    });
    const LoadedRun loaded = load_run(run);
    EXPECT_EQ(loaded.ranks.at(0).problem, RankProblem::none) << loaded.ranks.at(0).problem_text;
    return loaded.ranks.at(1);
}

// A rank file of another run that shares the folder name (run_id is the folder's name) was judged
// as this run's, and a trace's world_size, node and local_rank were never compared with run.json.
// Every run now has a random run_uuid in run.json and in every trace: a trace with another, or
// with none in a run that has one, or written by a run of another size, or on another node or
// local rank than run.json lists, is a foreign rank, not judged, and the run incomplete.
TEST(HostileInput, ATraceOfAnotherRunOrAnotherPlaceIsForeign) {
    struct Case {
        const char* name;
        std::function<void(std::vector<Trace>&)> edit;
        std::function<void(nlohmann::json&)> edit_json;
        std::string problem;
    };
    const std::vector<Case> cases = {
        {"same name, another run", [](std::vector<Trace>& t) { t[1].header.run_uuid = "other-run"; },
         [](nlohmann::json&) {},
         "belongs to another run named '20261130-060000-test' (run_uuid other-run), not to this one (run_uuid this-run)"},
        {"no run_uuid", [](std::vector<Trace>& t) { t[1].header.run_uuid.clear(); }, [](nlohmann::json&) {},
         "belongs to another run named '20261130-060000-test' (run_uuid not recorded), not to this one (run_uuid this-run)"},
        {"another world size", [](std::vector<Trace>& t) { t[1].header.world_size = 4; }, [](nlohmann::json&) {},
         "was written by a run of 4 rank(s); run.json has 2"},
        {"another node", [](std::vector<Trace>&) {},
         [](nlohmann::json& document) { document["ranks"][1]["node"] = "node0007"; },
         "was written on node 'node0001' as local rank 0; run.json has node 'node0007', local rank 0"},
        {"another local rank", [](std::vector<Trace>& t) { t[1].header.local_rank = 3; }, [](nlohmann::json&) {},
         "was written on node 'node0001' as local rank 3; run.json has node 'node0001', local rank 0"},
    };
    for (const Case& item : cases) {
        SCOPED_TRACE(item.name);
        TempDir temp;
        const RankRecord rank = rank_one_of(item.edit, temp, item.edit_json);
        EXPECT_EQ(rank.problem, RankProblem::foreign);
        const std::string node = std::string(item.name) == "another node" ? "node0007" : "node0001";
        EXPECT_EQ(rank.problem_text, "rank 1 (" + node + "): rank-00001.h5 " + item.problem);
        EXPECT_FALSE(rank.trace.has_value());
        const Outcome outcome = analyze_folder(temp.path() / "run");
        EXPECT_EQ(outcome.exit_code, 3);
        EXPECT_NE(outcome.out.find(rank.problem_text), std::string::npos) << outcome.out;
    }
    // The same run_uuid everywhere is this run's; so is a run whose run.json and traces predate
    // run_uuid (schema 1.0): judged by name as before.
    TempDir same;
    EXPECT_EQ(rank_one_of([](std::vector<Trace>&) {}, same).problem, RankProblem::none);
    TempDir old;
    const auto run = write_run(old.path() / "run", healthy_traces(2, 1));
    EXPECT_TRUE(nlohmann::json::parse(read_text(run / "run.json")).at("run_uuid").is_null());
    EXPECT_EQ(analyze_folder(run).exit_code, 0);
}

}  // namespace
}  // namespace shakedown::analysis
