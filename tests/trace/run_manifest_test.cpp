// run.json as the analyzer and `shakedown profile --from` read it: every number in its declared
// range (input_limits.hpp), never narrowed on the way in.
#include "core/errors.hpp"
#include "trace/run_manifest.hpp"

#include <gtest/gtest.h>

#include <string>

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

TEST(RunManifest, RankNumberOutsideTheWorldIsRefusedAsWritten) {
    json run = minimal_run(2);
    run["ranks"][0]["rank"] = 4294967296LL;  // 0 once narrowed to int
    EXPECT_EQ(error_of(run), "RUN: run.json: ranks[0].rank: 4294967296 is outside 0..1");
    run["ranks"][0]["rank"] = 2;
    EXPECT_EQ(error_of(run), "RUN: run.json: ranks[0].rank: 2 is outside 0..1");
}

}  // namespace
}  // namespace shakedown
