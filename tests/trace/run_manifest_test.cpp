// run.json as the analyzer and `shakedown profile --from` read it: every number in its declared
// range (input_limits.hpp), never narrowed on the way in.
#include "core/errors.hpp"
#include "trace/run_manifest.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace shakedown {
namespace {

using nlohmann::json;

json minimal_run(json world_size) {
    return {{"run_id", "r"},
            {"world_size", std::move(world_size)},
            {"status", "complete"},
            {"ranks", json::array({{{"rank", 0}, {"node", "n0"}}})}};
}

std::string error_of(const json& document) {
    try {
        (void)parse_run_manifest(document, "RUN: ");
    } catch (const InputError& error) {
        return error.what();
    }
    return "no error";
}

// 4294967298 was read as 2 (the run then passed), 2147483647 ended in bad_alloc.
TEST(RunManifest, WorldSizeOutsideItsRangeIsRefusedAsWritten) {
    EXPECT_EQ(error_of(minimal_run(4294967298LL)), "RUN: run.json: world_size: 4294967298 is outside 1..1048576");
    EXPECT_EQ(error_of(minimal_run(2147483647)), "RUN: run.json: world_size: 2147483647 is outside 1..1048576");
    EXPECT_EQ(error_of(minimal_run(1048577)), "RUN: run.json: world_size: 1048577 is outside 1..1048576");
    EXPECT_EQ(error_of(minimal_run(18446744073709551615ULL)),
              "RUN: run.json: world_size: 18446744073709551615 is outside 1..1048576");
    EXPECT_EQ(error_of(minimal_run(0)), "RUN: run.json: world_size: 0 is outside 1..1048576");
    EXPECT_EQ(error_of(minimal_run(-4294967295LL)), "RUN: run.json: world_size: -4294967295 is outside 1..1048576");
    EXPECT_EQ(parse_run_manifest(minimal_run(1048576), "RUN: ").world_size, 1048576);
    EXPECT_EQ(parse_run_manifest(minimal_run(2), "RUN: ").world_size, 2);
}

// run_uuid (schema 1.1): written and read back; absent or null in an older run.json, a string only.
TEST(RunManifest, RunUuidRoundTripsAndIsOptional) {
    RunManifest manifest = parse_run_manifest(minimal_run(1), "RUN: ");
    EXPECT_EQ(manifest.run_uuid, "");
    manifest.run_uuid = "0f8e2a3b-1c4d-4e5f-8a6b-7c8d9e0f1a2b";
    const json written = to_json(manifest);
    EXPECT_EQ(written.at("run_uuid"), manifest.run_uuid);
    EXPECT_EQ(written.at("schema_version"), "1.2");  // run.json's own version since the trace sub-folders
    EXPECT_EQ(parse_run_manifest(written, "RUN: ").run_uuid, manifest.run_uuid);
    json wrong = minimal_run(1);
    wrong["run_uuid"] = 7;
    EXPECT_EQ(error_of(wrong), "RUN: run.json: run_uuid: expected a string");
}

TEST(RunManifest, RankNumberOutsideTheWorldIsRefusedAsWritten) {
    json run = minimal_run(2);
    run["ranks"][0]["rank"] = 4294967296LL;  // 0 once narrowed to int
    EXPECT_EQ(error_of(run), "RUN: run.json: ranks[0].rank: 4294967296 is outside 0..1");
    run["ranks"][0]["rank"] = 2;
    EXPECT_EQ(error_of(run), "RUN: run.json: ranks[0].rank: 2 is outside 0..1");
}

// A member of the wrong type is refused naming it, not skipped: a string `tests` turned off the
// "no result recorded" check, a text `local_rank` or `gpu` was read as 0 or none.
TEST(RunManifest, MembersOfTheWrongTypeAreRefusedNamingThem) {
    struct Case {
        const char* key;  // a JSON pointer into the document
        json value;
        std::string message;
    };
    const std::vector<Case> cases = {
        {"/tests", "stream", "tests: expected a list of strings"},
        {"/tests", json::array({"stream", 3}), "tests[1]: expected a string"},
        {"/suite", json::array({"quick"}), "suite: expected a string"},
        {"/nodes", "n0", "nodes: expected a list"},
        {"/nodes", json::array({"n0"}), "nodes[0]: expected an object"},
        {"/nodes", json::array({{{"name", "n0"}, {"ranks", json::array({5})}}}), "nodes[0].ranks[0]: 5 is outside 0..1"},
        {"/ranks/0/local_rank", "0", "ranks[0].local_rank: expected an integer"},
        {"/ranks/0/local_rank", -1, "ranks[0].local_rank: -1 is outside 0..1048575"},
        {"/ranks/0/gpu", "0", "ranks[0].gpu: expected an integer"},
        {"/ranks/0/gpu", 4096, "ranks[0].gpu: 4096 is outside 0..1023"},
        {"/ranks/0/gpu_uuid", 7, "ranks[0].gpu_uuid: expected a string"},
        {"/schema_version", 1, "schema_version: expected a string"},
        {"/schema_version", "2.0", "schema_version '2.0' is not supported (this reader reads 1.x)"},
        {"/start_utc", "yesterday", "start_utc: expected a number"},
        {"/versions", "1.0", "versions: expected an object"},
    };
    for (const Case& item : cases) {
        SCOPED_TRACE(item.key);
        json run = minimal_run(2);
        run[json::json_pointer(item.key)] = item.value;
        EXPECT_EQ(error_of(run), "RUN: run.json: " + item.message);
    }
    // What the driver writes reads back: nulls stand for "not recorded".
    RunManifest manifest;
    manifest.run_id = "r";
    manifest.world_size = 1;
    manifest.status = "complete";
    manifest.tests = {"stream"};
    manifest.nodes = {{"n0", 0, {0}}};
    manifest.ranks = {{0, "n0", 0, 0, std::nullopt, "", "", "rank-00000.h5"}};
    const RunManifest again = parse_run_manifest(to_json(manifest), "RUN: ");
    EXPECT_EQ(again.tests, manifest.tests);
    EXPECT_EQ(again.suite, "");
    EXPECT_FALSE(again.ranks.at(0).gpu.has_value());
    EXPECT_EQ(again.nodes.at(0).ranks, std::vector<int>{0});
}

// The trace layout (run.json 1.2): one folder per block of 1,000 ranks under RUN/traces.
TEST(RunManifest, TracePathPutsEachBlockOfAThousandRanksInItsOwnFolder) {
    EXPECT_EQ(trace_relative_path(0).generic_string(), "traces/00000-00999/rank-00000.h5");
    EXPECT_EQ(trace_relative_path(42).generic_string(), "traces/00000-00999/rank-00042.h5");
    EXPECT_EQ(trace_relative_path(999).generic_string(), "traces/00000-00999/rank-00999.h5");
    EXPECT_EQ(trace_relative_path(1000).generic_string(), "traces/01000-01999/rank-01000.h5");
    EXPECT_EQ(trace_relative_path(81919).generic_string(), "traces/81000-81999/rank-81919.h5");
    EXPECT_EQ(trace_relative_path(1048575).generic_string(), "traces/1048000-1048999/rank-1048575.h5");
    EXPECT_EQ(trace_block_folder(81919).generic_string(), "traces/81000-81999");
    EXPECT_EQ(trace_relative_path(7).parent_path(), trace_block_folder(7));
}

// run.json is input: a trace entry that leaves the run folder is refused naming it, whatever the
// writer's layout; one that stays inside (flat, or in sub-folders) is read as written.
TEST(RunManifest, HostileTracePathsAreRefusedAndInsidePathsKept) {
    struct Case {
        std::string trace;
        std::string why;
    };
    const std::vector<Case> hostile = {
        {"/etc/passwd", "an absolute path"},
        {"//server/share/rank-00000.h5", "an absolute path"},
        {"../rank-00000.h5", "a '..' component"},
        {"../../etc/passwd", "a '..' component"},
        {"traces/../../etc/passwd", "a '..' component"},
        {"traces/00000-00999/../../../x.h5", "a '..' component"},
        {"traces/00000-00999/..", "a '..' component"},
    };
    for (const Case& item : hostile) {
        SCOPED_TRACE(item.trace);
        json run = minimal_run(1);
        run["ranks"][0]["trace"] = item.trace;
        EXPECT_EQ(error_of(run), "RUN: run.json: ranks[0].trace: '" + item.trace + "' is not a path inside the run folder (" +
                                     item.why + ")");
    }
    // A NUL byte would make the file system see a shorter path than the one checked; the message
    // shows it escaped (an exception's text ends at a NUL).
    json nul = minimal_run(1);
    nul["ranks"][0]["trace"] = std::string("rank-00000.h5\0/../../etc/passwd", 31);
    EXPECT_EQ(error_of(nul),
              "RUN: run.json: ranks[0].trace: 'rank-00000.h5\\x00/../../etc/passwd' is not a path inside the run folder "
              "(a NUL byte)");
    json wrong = minimal_run(1);
    wrong["ranks"][0]["trace"] = 3;
    EXPECT_EQ(error_of(wrong), "RUN: run.json: ranks[0].trace: expected a string");
    for (const std::string inside : {"rank-00000.h5", "traces/00000-00999/rank-00000.h5", "./rank-00000.h5", "a..b/rank..h5"}) {
        json run = minimal_run(1);
        run["ranks"][0]["trace"] = inside;
        EXPECT_EQ(parse_run_manifest(run, "RUN: ").ranks.at(0).trace_file, inside);
    }
    // Not recorded (absent, null, ""): the flat name every run.json before 1.2 used.
    json absent = minimal_run(1);
    EXPECT_EQ(parse_run_manifest(absent, "RUN: ").ranks.at(0).trace_file, "rank-00000.h5");
    absent["ranks"][0]["trace"] = nullptr;
    EXPECT_EQ(parse_run_manifest(absent, "RUN: ").ranks.at(0).trace_file, "rank-00000.h5");
}

// manifest_cost (1.2): what rank 0's run.json cost, written and read back; absent before 1.2.
TEST(RunManifest, ManifestCostRoundTripsAndIsChecked) {
    RunManifest manifest = parse_run_manifest(minimal_run(1), "RUN: ");
    EXPECT_FALSE(manifest.cost.has_value());
    EXPECT_TRUE(to_json(manifest).at("manifest_cost").is_null());
    manifest.cost = ManifestCost{.barrier_s = 0.125, .gather_s = 0.25, .write_s = 0.5, .bytes = 1234};
    const RunManifest again = parse_run_manifest(to_json(manifest), "RUN: ");
    ASSERT_TRUE(again.cost.has_value());
    EXPECT_EQ(again.cost->barrier_s, 0.125);
    EXPECT_EQ(again.cost->gather_s, 0.25);
    EXPECT_EQ(again.cost->write_s, 0.5);
    EXPECT_EQ(again.cost->bytes, 1234u);
    const std::vector<std::pair<json, std::string>> bad = {
        {"fast", "manifest_cost: expected an object"},
        {{{"barrier_s", 0}, {"write_s", 0}, {"bytes", 1}}, "manifest_cost.gather_s is missing"},
        {{{"barrier_s", 0}, {"gather_s", -1}, {"write_s", 0}, {"bytes", 1}}, "manifest_cost.gather_s: expected a number of seconds >= 0"},
        {{{"barrier_s", 0}, {"gather_s", 0}, {"write_s", "0"}, {"bytes", 1}}, "manifest_cost.write_s: expected a number of seconds >= 0"},
        {{{"barrier_s", 0}, {"gather_s", 0}, {"write_s", 0}, {"bytes", -1}}, "manifest_cost.bytes: expected a whole number >= 0"},
        {{{"gather_s", 0}, {"write_s", 0}, {"bytes", 1}}, "manifest_cost.barrier_s is missing"},
    };
    for (const auto& [value, message] : bad) {
        SCOPED_TRACE(value.dump());
        json run = minimal_run(1);
        run["manifest_cost"] = value;
        EXPECT_EQ(error_of(run), "RUN: run.json: " + message);
    }
}

}  // namespace
}  // namespace shakedown
