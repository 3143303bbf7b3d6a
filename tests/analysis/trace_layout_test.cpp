// Where the analyzer finds each rank's trace: the sub-folders of run.json 1.2
// (RUN/traces/<block>/rank-NNNNN.h5), the flat RUN/rank-NNNNN.h5 of every run folder written
// before it, and never outside the run folder whatever run.json says.
#include "analysis/analyzer.hpp"
#include "analysis/load/run_loader.hpp"
#include "analysis_fixtures.hpp"
#include "trace/run_manifest.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace shakedown::analysis {
namespace {

using testing::healthy_traces;
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
    std::ostringstream out;
    std::ostringstream err;
    const int code = analyze(options, out, err);
    return {code, out.str(), err.str()};
}

nlohmann::json read_manifest_json(const std::filesystem::path& run) {
    std::ifstream in(run / run_manifest_file_name);
    return nlohmann::json::parse(in);
}

void rewrite_manifest_json(const std::filesystem::path& run, const nlohmann::json& document) {
    std::ofstream(run / run_manifest_file_name, std::ios::trunc) << document.dump(2) << '\n';
}

// A flat run folder moved into the layout the driver writes now, run.json saying so.
std::filesystem::path write_placed_run(const std::filesystem::path& dir, int world_size, int ranks_per_node) {
    const auto run = write_run(dir, healthy_traces(world_size, ranks_per_node));
    nlohmann::json manifest = read_manifest_json(run);
    manifest["schema_version"] = run_manifest_schema_version;
    for (auto& entry : manifest["ranks"]) {
        const int rank = entry["rank"].get<int>();
        std::filesystem::create_directories(run / trace_block_folder(rank));
        std::filesystem::rename(run / default_trace_file_name(rank), run / trace_relative_path(rank));
        entry["trace"] = trace_relative_path(rank).generic_string();
    }
    rewrite_manifest_json(run, manifest);
    return run;
}

TEST(TraceLayout, TracesInBlockFoldersAreReadWhereRunJsonPlacesThem) {
    TempDir temp;
    const auto run = write_placed_run(temp.path() / "placed", 4, 2);
    ASSERT_FALSE(std::filesystem::exists(run / "rank-00000.h5"));
    const LoadedRun loaded = load_run(run);
    ASSERT_EQ(loaded.ranks.size(), 4u);
    for (const RankRecord& record : loaded.ranks) {
        SCOPED_TRACE(record.rank);
        EXPECT_EQ(record.trace_path, run / "traces" / "00000-00999" / fmt::format("rank-{:05d}.h5", record.rank));
        EXPECT_EQ(record.problem, RankProblem::none) << record.problem_text;
        ASSERT_TRUE(record.trace.has_value());
        EXPECT_EQ(record.trace->header.rank, record.rank);
    }
    const Outcome outcome = analyze_folder(run);
    EXPECT_EQ(outcome.exit_code, 0) << outcome.out << outcome.err;
    EXPECT_EQ(outcome.out.find("trace missing"), std::string::npos) << outcome.out;
}

// A rank that run.json does not list is looked for where the driver places it, then flat.
TEST(TraceLayout, AnUnlistedRankIsFoundInItsBlockFolderOrElseFlat) {
    TempDir temp;
    const auto placed = write_placed_run(temp.path() / "placed", 4, 2);
    nlohmann::json manifest = read_manifest_json(placed);
    manifest["ranks"].erase(3);
    rewrite_manifest_json(placed, manifest);
    LoadedRun loaded = load_run(placed);
    EXPECT_EQ(loaded.ranks.at(3).trace_path, placed / trace_relative_path(3));
    EXPECT_TRUE(loaded.ranks.at(3).trace.has_value()) << loaded.ranks.at(3).problem_text;

    const auto flat = write_run(temp.path() / "flat", healthy_traces(4, 2));
    manifest = read_manifest_json(flat);
    manifest["ranks"].erase(3);
    rewrite_manifest_json(flat, manifest);
    loaded = load_run(flat);
    EXPECT_EQ(loaded.ranks.at(3).trace_path, flat / "rank-00003.h5");
    EXPECT_TRUE(loaded.ranks.at(3).trace.has_value()) << loaded.ranks.at(3).problem_text;

    std::filesystem::remove(placed / trace_relative_path(3));  // in neither place: missing, named
    loaded = load_run(placed);
    EXPECT_EQ(loaded.ranks.at(3).problem, RankProblem::missing);
    EXPECT_EQ(loaded.ranks.at(3).problem_text, "rank 3: trace missing (rank-00003.h5)");  // no node: unlisted
}

// Run folders written before run.json 1.2 keep their traces in RUN/ itself: still analyzed.
TEST(TraceLayout, FlatRunFolderOfAnOlderRunJsonIsStillAnalyzed) {
    TempDir temp;
    const auto run = write_run(temp.path() / "old", healthy_traces(4, 2));
    nlohmann::json manifest = read_manifest_json(run);
    manifest["schema_version"] = "1.1";
    for (auto& entry : manifest["ranks"]) {
        EXPECT_EQ(entry["trace"], default_trace_file_name(entry["rank"].get<int>()));
        entry.erase("node_index");  // as 1.1-era files may lack later optional members
    }
    manifest.erase("manifest_cost");
    rewrite_manifest_json(run, manifest);
    const LoadedRun loaded = load_run(run);
    for (const RankRecord& record : loaded.ranks) {
        EXPECT_EQ(record.trace_path, run / default_trace_file_name(record.rank));
        EXPECT_EQ(record.problem, RankProblem::none) << record.problem_text;
    }
    const Outcome outcome = analyze_folder(run);
    EXPECT_EQ(outcome.exit_code, 0) << outcome.out << outcome.err;
    EXPECT_TRUE(std::filesystem::exists(run / "summary.json"));
}

// run.json is input: a trace entry outside the run folder is bad input, one line, exit 2, and
// nothing is written (no summary.json) and nothing outside is read.
TEST(TraceLayout, HostileTracePathsInRunJsonAreRefusedWithOneLine) {
    TempDir temp;
    const auto secret = temp.path() / "outside.h5";
    const auto run = write_placed_run(temp.path() / "run", 2, 2);
    std::filesystem::copy_file(run / trace_relative_path(1), secret);
    const std::vector<std::pair<std::string, std::string>> hostile = {
        {secret.string(), "an absolute path"},
        {"../outside.h5", "a '..' component"},
        {"traces/../../outside.h5", "a '..' component"},
        {"traces/00000-00999/../../../outside.h5", "a '..' component"},
    };
    for (const auto& [trace, why] : hostile) {
        SCOPED_TRACE(trace);
        nlohmann::json manifest = read_manifest_json(run);
        manifest["ranks"][1]["trace"] = trace;
        rewrite_manifest_json(run, manifest);
        const Outcome outcome = analyze_folder(run);
        EXPECT_EQ(outcome.exit_code, 2);
        EXPECT_EQ(outcome.err, "shakedown-analyze: " + run.string() + " is not a shakedown run folder: run.json: ranks[1].trace: '" +
                                   trace + "' is not a path inside the run folder (" + why + ")\n");
        EXPECT_EQ(outcome.out, "");
        EXPECT_FALSE(std::filesystem::exists(run / "summary.json"));
    }
}

}  // namespace
}  // namespace shakedown::analysis
