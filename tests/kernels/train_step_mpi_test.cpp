// `train_step` through the driver's path on 1, 2 and 4 host ranks: every figure present and
// plausible, the gradients validated, a planted corrupted gradient failing the rank that holds
// it, a planted slow rank lowering the job's efficiency without failing the others, and bad
// shapes and parameters refused with one line.
#include "support/mpi_world.hpp"
#include "support/result_lookup.hpp"
#include "support/run_test.hpp"

#include "kernels/train/train_step_names.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace shakedown::testing {
namespace {

namespace names = kernels::train_names;

constexpr const char* small = "{device: host, model: custom, hidden: 64, ffn: 128, heads: 4, kv_heads: 2, layers: 2, "
                              "sequence: 32, steps: 3, warmup_steps: 1, bucket_mib: 0.02, allreduce_repetitions: 2}";

std::string config(const std::string& faults = "") {
    return fmt::format("params: {{train_step: {}}}\n{}", small, faults);
}

double value(const TestResult& result, std::string_view name) {
    const auto metric = find_metric(result, std::string(name));
    EXPECT_TRUE(metric) << name;
    return metric ? metric->value : 0.0;
}

TEST(TrainStep, EveryFigureIsPresentPlausibleAndValidated) {
    const TestResult result = run_registered_test("train_step", config());
    ASSERT_EQ(result.status, Status::pass) << result.reason;
    const double step = value(result, names::step_time_s);
    EXPECT_GT(step, 0.0);
    EXPECT_GE(value(result, names::step_time_p95_s), step);
    // 64 tokens per step per rank.
    EXPECT_NEAR(value(result, names::tokens_per_s), 32.0 / step, 1e-9 * 32.0 / step);
    // Model FLOP of 2 layers of 64-wide: 6 x params x tokens + 12 x layers x hidden x sequence x tokens.
    const double params = 64.0 * (64 + 2 * 2 * 16) + 64.0 * 64 + 3.0 * 64 * 128 + 2 * 64;
    EXPECT_DOUBLE_EQ(value(result, names::model_tflop_per_step), (6.0 * params * 2 * 32 + 12.0 * 2 * 64 * 32 * 32) * 1e-12);
    EXPECT_GT(value(result, names::measured_peak_tflops), 0.0);
    EXPECT_GT(value(result, names::mfu_of_measured_peak), 0.0);
    EXPECT_GE(value(result, names::exposed_comm_s), 0.0);
    for (auto name : {names::node_efficiency, names::job_efficiency, names::predicted_node_efficiency,
                      names::predicted_job_efficiency}) {
        EXPECT_GT(value(result, name), 0.0) << name;
        EXPECT_LT(value(result, name), 3.0) << name;
    }
    EXPECT_EQ(value(result, names::job_gpus), world_size());
    EXPECT_EQ(value(result, names::job_nodes), 1.0);
    EXPECT_FALSE(find_metric(result, std::string(names::node_link_gbs)));  // one node: no link between nodes
    if (world_size() > 1) {
        EXPECT_GT(value(result, names::job_busbw_gbs), 0.0);
    } else {
        EXPECT_EQ(value(result, names::job_busbw_gbs), 0.0);
        EXPECT_DOUBLE_EQ(value(result, names::predicted_job_efficiency), 1.0);  // nothing to exchange
    }
    EXPECT_LT(value(result, names::reference_error), 1e-4);
    EXPECT_LE(value(result, names::gradient_sum_error), (world_size() + 1) / 16777216.0);
    EXPECT_EQ(result.parameters.at("device"), "host");
    EXPECT_EQ(result.parameters.at(std::string(names::recorded_attention)), "explicit");
    // Three phases x 3 timed steps.
    EXPECT_EQ(result.samples.size(), 9u);
}

TEST(TrainStep, ACorruptedReducedGradientFailsTheRankThatHoldsIt) {
    const int victim = world_size() - 1;
    const TestResult result =
        run_registered_test("train_step", config(fmt::format("faults: [{{kind: corrupt, test: train_step, rank: {}}}]", victim)));
    if (world_rank() == victim && world_size() == 1) {
        ASSERT_EQ(result.status, Status::fail);
        EXPECT_NE(result.reason.find("differs in its bits from its own gradient"), std::string::npos) << result.reason;
    } else if (world_rank() == victim) {
        ASSERT_EQ(result.status, Status::fail);
        EXPECT_NE(result.reason.find("not the sum of the ranks' gradients"), std::string::npos) << result.reason;
        if (world_size() > 2) EXPECT_NE(result.reason.find("differs in its bits from"), std::string::npos) << result.reason;
        // One element of thousands moved: far beyond fp32's rounding of the sum.
        EXPECT_GT(value(result, names::gradient_sum_error), 20 * (world_size() + 1) / 16777216.0);
    } else if (world_size() == 2) {
        // Two ranks that differ: no majority says which is right, both are told.
        ASSERT_EQ(result.status, Status::fail);
        EXPECT_NE(result.reason.find("no majority says which is right"), std::string::npos) << result.reason;
        EXPECT_EQ(result.reason.find("not the sum"), std::string::npos) << result.reason;
    } else {
        EXPECT_EQ(result.status, Status::pass) << result.reason;
    }
}

TEST(TrainStep, ASlowRankLowersTheJobsEfficiencyAndFailsNoOne) {
    if (world_size() < 2) GTEST_SKIP() << "a slow rank slows a job of several";
    const TestResult result =
        run_registered_test("train_step", config("faults: [{kind: delay, test: train_step, rank: 0, seconds: 0.05}]"));
    ASSERT_EQ(result.status, Status::pass) << result.reason;
    const double alone = value(result, names::alone_step_s);
    double slowest = alone;
    MPI_Allreduce(MPI_IN_PLACE, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (world_rank() == 0) EXPECT_EQ(alone, slowest);  // 2 layers x 50 ms: rank 0 is the slow one alone
    // The job waits for it every step: well below the T1 of the median rank.
    EXPECT_LT(value(result, names::job_efficiency), 0.7);
    EXPECT_GT(value(result, names::step_time_s), 0.1);
}

TEST(TrainStep, BadShapesAndParametersAreOneLine) {
    expect_refused("train_step", "params: {train_step: {model: custom, hidden: 64, ffn: 128, heads: 4}}",
                   "train_step: model custom needs kv_heads");
    expect_refused("train_step", "params: {train_step: {model: llama3_8b, hidden: 64}}",
                   "train_step: hidden is set by model llama3_8b; use model: custom");
    expect_refused("train_step", "params: {train_step: {model: custom, hidden: 60, ffn: 128, heads: 4, kv_heads: 2}}",
                   "train_step: model custom: the head dimension hidden / heads = 15 is not a multiple of 8");
    expect_refused("train_step", "params: {train_step: {model: custom, hidden: 64, ffn: 128, heads: 4, kv_heads: 3}}",
                   "heads 4 is not a multiple of kv_heads 3");
    expect_refused("train_step", "params: {train_step: {model: gpt5}}", "model");
    expect_refused("train_step", "params: {train_step: {steps: 0}}", "steps");
    // What only the node can judge: the host runs fp32.
    const TestResult result = run_registered_test("train_step", "params: {train_step: {device: host, precision: bf16}}");
    EXPECT_EQ(result.status, Status::error);
    EXPECT_TRUE(result.bad_input);
    EXPECT_NE(result.reason.find("precision bf16 runs on a GPU"), std::string::npos) << result.reason;
}

}  // namespace
}  // namespace shakedown::testing
