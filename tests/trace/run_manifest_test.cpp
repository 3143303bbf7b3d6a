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
    EXPECT_EQ(written.at("schema_version"), "1.1");
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

}  // namespace
}  // namespace shakedown
