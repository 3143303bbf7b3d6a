// The quick suite end to end: mpirun -> traces + run.json -> shakedown-analyze -> verdict.
#include "e2e_support.hpp"
#include "../support/result_lookup.hpp"
#include "trace/trace_reader.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <regex>

namespace shakedown::testing {
namespace {

TEST(EndToEnd, QuickSuiteOnTwoRanksPassesAndLeavesCompleteTraces) {
    const ScratchFolder scratch("quick");
    const auto config = scratch.write("small.yaml", small_params);
    const auto run = run_process(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--suite", "quick", "--config", config.string(),
                                            "--out", scratch.path().string(), "--name", "r1"}));
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const auto folder = scratch.path() / "r1";
    EXPECT_NE(run.output.find("run folder: " + folder.string()), std::string::npos) << run.output;

    const auto manifest = read_json(folder / "run.json");
    EXPECT_EQ(manifest["status"], "complete");
    EXPECT_EQ(manifest["world_size"], 2);
    EXPECT_EQ(manifest["suite"], "quick");
    ASSERT_EQ(manifest["nodes"].size(), 1u);
    EXPECT_EQ(manifest["nodes"][0]["ranks"], nlohmann::json({0, 1}));
    EXPECT_GT(manifest["end_utc"].get<double>(), manifest["start_utc"].get<double>());
    const auto suite_tests = manifest["tests"].get<std::vector<std::string>>();
    EXPECT_NE(run.output.find(fmt::format("1/{}] ", suite_tests.size())), std::string::npos) << run.output;
    EXPECT_NE(std::find(suite_tests.begin(), suite_tests.end(), "stream"), suite_tests.end());
    EXPECT_NE(std::find(suite_tests.begin(), suite_tests.end(), "mpi_pingpong"), suite_tests.end());

    for (int rank : {0, 1}) {
        const Trace trace = read_trace(folder / trace_relative_path(rank));
        SCOPED_TRACE(fmt::format("rank {}", rank));
        EXPECT_EQ(trace.status, TraceStatus::complete);
        EXPECT_EQ(trace.header.rank, rank);
        EXPECT_EQ(trace.header.world_size, 2);
        EXPECT_EQ(trace.header.run_id, "r1");
        EXPECT_NE(trace.config_yaml.find("suite: quick"), std::string::npos);
        EXPECT_TRUE(trace.inventory.contains("cpu"));
        EXPECT_EQ(trace.tests.size(), suite_tests.size());
        for (const auto& test : trace.tests) {
            EXPECT_TRUE(test.status == Status::pass || test.status == Status::waived) << test.key << ": " << test.reason;
            EXPECT_GE(test.end_utc, test.start_utc);
        }
        const auto* stream = find_test(trace, "stream");
        ASSERT_NE(stream, nullptr);
        const auto* triad = find_metric(*stream, "stream.triad_gbs");
        ASSERT_NE(triad, nullptr);
        EXPECT_EQ(triad->unit, "GB/s");
        EXPECT_GT(triad->value, 0.1);  // any real memory system moves more than 100 MB/s
        EXPECT_FALSE(stream->samples.empty());
        const auto* pingpong = find_test(trace, "mpi_pingpong");
        ASSERT_NE(pingpong, nullptr);
        const auto* latency = find_metric(*pingpong, "mpi_pingpong.latency_us");
        ASSERT_NE(latency, nullptr);
        EXPECT_GT(latency->value, 0.0);
        EXPECT_LT(latency->value, 10000.0);
    }

    // Telemetry: the node leader (rank 0) samples the host during every test; rank 1 does not.
    const Trace leader = read_trace(folder / trace_relative_path(0));
    ASSERT_TRUE(leader.telemetry.contains("host"));
    const auto& host = leader.telemetry.at("host");
    ASSERT_FALSE(host.empty());
    const auto times = host.column("t");
    EXPECT_GE(times.front(), leader.header.start_utc);
    EXPECT_TRUE(std::is_sorted(times.begin(), times.end()));
    EXPECT_TRUE(read_trace(folder / trace_relative_path(1)).telemetry.empty());

    const auto rules = scratch.write("rules.yaml", speed_rules_off);
    const auto analysis = run_process({SHAKEDOWN_ANALYZER, folder.string(), "--thresholds", rules.string()});
    EXPECT_EQ(analysis.exit_code, 0) << analysis.output;
    EXPECT_NE(analysis.output.find("PASS"), std::string::npos) << analysis.output;
    EXPECT_NE(analysis.output.find(folder.string()), std::string::npos) << analysis.output;
    const auto summary = read_json(folder / "summary.json");
    ASSERT_EQ(summary["nodes"].size(), 1u) << summary.dump(2);
    EXPECT_EQ(summary["nodes"][0]["verdict"], "pass") << summary.dump(2);
}

// One rank (a single-GPU node): the whole quick suite runs, the pair tests waive with the reason,
// nothing is refused.
TEST(EndToEnd, QuickSuiteOnOneRankRunsEveryTestOrSaysWhyNot) {
    const ScratchFolder scratch("np1");
    const auto config = scratch.write("small.yaml", small_params);
    const auto run = run_process(mpirun(1, {SHAKEDOWN_DRIVER, "run", "--suite", "quick", "--config", config.string(),
                                            "--out", scratch.path().string(), "--name", "r1"}));
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const Trace trace = read_trace(scratch.path() / "r1" / trace_relative_path(0));
    int pair_tests = 0;
    for (const auto& test : trace.tests) {
        EXPECT_TRUE(test.status == Status::pass || test.status == Status::waived) << test.key << ": " << test.reason;
        if (test.key == "mpi_pingpong" || test.key == "ucx_perf") {
            ++pair_tests;
            EXPECT_EQ(test.status, Status::waived) << test.key;
            EXPECT_EQ(test.reason, "needs at least 2 ranks (this run has 1)") << test.key;
        }
    }
    EXPECT_GE(pair_tests, 1);
}

TEST(EndToEnd, FourRanksWriteFourTraces) {
    const ScratchFolder scratch("np4");
    const auto config = scratch.write("small.yaml", small_params);
    const auto run = run_process(mpirun(4, {SHAKEDOWN_DRIVER, "run", "--tests", "stream,mpi_pingpong", "--config",
                                            config.string(), "--out", scratch.path().string(), "--name", "r4"}));
    ASSERT_EQ(run.exit_code, 0) << run.output;
    for (int rank = 0; rank < 4; ++rank) {
        const Trace trace = read_trace(scratch.path() / "r4" / trace_relative_path(rank));
        EXPECT_EQ(trace.status, TraceStatus::complete);
        ASSERT_EQ(trace.tests.size(), 2u);
        EXPECT_EQ(trace.tests[0].key, "stream");  // --tests keeps the order given
        EXPECT_EQ(trace.tests[1].key, "mpi_pingpong");
        EXPECT_EQ(trace.tests[1].status, Status::pass) << trace.tests[1].reason;
    }
}

TEST(EndToEnd, PlantedCorruptionFailsTheTestAndTheNode) {
    const ScratchFolder scratch("corrupt");
    const auto config = scratch.write("corrupt.yaml", small_params + "faults: [{kind: corrupt, test: stream, rank: 1}]\n");
    const auto run = run_process(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "stream", "--config", config.string(),
                                            "--out", scratch.path().string(), "--name", "bad"}));
    EXPECT_EQ(run.exit_code, 1) << run.output;
    EXPECT_NE(run.output.find("fail"), std::string::npos) << run.output;
    const Trace good = read_trace(scratch.path() / "bad" / trace_relative_path(0));
    const Trace bad = read_trace(scratch.path() / "bad" / trace_relative_path(1));
    EXPECT_EQ(good.tests.at(0).status, Status::pass);
    EXPECT_EQ(bad.tests.at(0).status, Status::fail);
    EXPECT_FALSE(bad.tests.at(0).reason.empty());

    const auto analysis = run_process({SHAKEDOWN_ANALYZER, (scratch.path() / "bad").string()});
    EXPECT_EQ(analysis.exit_code, 1) << analysis.output;
    EXPECT_NE(analysis.output.find("FAIL"), std::string::npos) << analysis.output;
}

TEST(EndToEnd, ListAndVersion) {
    const auto list = run_process({SHAKEDOWN_DRIVER, "list"});
    EXPECT_EQ(list.exit_code, 0);
    EXPECT_NE(list.output.find("stream"), std::string::npos);
    EXPECT_NE(list.output.find("mpi_pingpong"), std::string::npos);
    const auto version = run_process({SHAKEDOWN_DRIVER, "version"});
    EXPECT_EQ(version.exit_code, 0);
    EXPECT_NE(version.output.find("shakedown " SHAKEDOWN_VERSION), std::string::npos) << version.output;
}

// `list --json`: every declaration as a tool reads it, the same tests as the table.
TEST(EndToEnd, ListJsonHoldsEveryDeclaration) {
    const auto listed = run_process({SHAKEDOWN_DRIVER, "list", "--json"});
    ASSERT_EQ(listed.exit_code, 0) << listed.output;
    const auto tests = nlohmann::json::parse(listed.output);
    ASSERT_TRUE(tests.is_array());
    const auto train = std::find_if(tests.begin(), tests.end(), [](const nlohmann::json& test) { return test["key"] == "train_step"; });
    ASSERT_NE(train, tests.end());
    EXPECT_EQ((*train)["suites"], nlohmann::json::array({"quick", "full"}));
    const auto& metrics = (*train)["metrics"];
    const auto job = std::find_if(metrics.begin(), metrics.end(),
                                  [](const nlohmann::json& metric) { return metric["name"] == "train_step.job_efficiency"; });
    ASSERT_NE(job, metrics.end());
    EXPECT_EQ((*job)["scope"], "job");
    EXPECT_EQ((*job)["better"], "higher");
    const auto& parameters = (*train)["parameters"];
    const auto steps = std::find_if(parameters.begin(), parameters.end(),
                                    [](const nlohmann::json& parameter) { return parameter["name"] == "steps"; });
    ASSERT_NE(steps, parameters.end());
    EXPECT_EQ((*steps)["default"], "10");
    EXPECT_EQ((*steps)["suite_defaults"]["quick"], "6");
    const auto table = run_process({SHAKEDOWN_DRIVER, "list"});
    for (const auto& test : tests)
        EXPECT_NE(table.output.find(test["key"].get<std::string>()), std::string::npos) << test["key"];
}

// A rank file of another run that shared the folder name was judged as this run's: run_id is the
// folder's name. Every run now has a random run_uuid, in run.json and in each of its traces, and a
// trace of another run of the same name is a foreign rank.
TEST(EndToEnd, TwoRunsOfOneNameHaveTheirOwnRunUuidAndDoNotMix) {
    const ScratchFolder scratch("uuid");
    const auto config = scratch.write("small.yaml", small_params);
    std::vector<std::string> uuids;
    for (const char* parent : {"a", "b"}) {
        const auto run = run_process(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "stream", "--config", config.string(),
                                                "--out", (scratch.path() / parent).string(), "--name", "same"}));
        ASSERT_EQ(run.exit_code, 0) << run.output;
        const auto folder = scratch.path() / parent / "same";
        const std::string uuid = read_json(folder / "run.json").at("run_uuid").get<std::string>();
        EXPECT_TRUE(std::regex_match(uuid, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")))
            << uuid;
        for (int rank : {0, 1}) {
            const Trace trace = read_trace(folder / trace_relative_path(rank));
            EXPECT_EQ(trace.header.run_uuid, uuid);
            EXPECT_EQ(trace.header.schema_version, trace_schema_version);
        }
        uuids.push_back(uuid);
    }
    EXPECT_NE(uuids[0], uuids[1]);
    const auto mine = scratch.path() / "a" / "same";
    std::filesystem::copy_file(scratch.path() / "b" / "same" / trace_relative_path(1), mine / trace_relative_path(1),
                               std::filesystem::copy_options::overwrite_existing);
    const auto analysis = run_process({SHAKEDOWN_ANALYZER, mine.string()});
    EXPECT_EQ(analysis.exit_code, 3) << analysis.output;
    EXPECT_NE(analysis.output.find("rank-00001.h5 belongs to another run named 'same' (run_uuid " + uuids[1] +
                                   "), not to this one (run_uuid " + uuids[0] + ")"),
              std::string::npos)
        << analysis.output;
}

}  // namespace
}  // namespace shakedown::testing
