#include "support/mpi_world.hpp"
#include "support/result_lookup.hpp"
#include "support/run_test.hpp"

#include <gtest/gtest.h>

namespace shakedown::testing {
namespace {

const std::string tiny_coll =
    "params: {mpi_coll: {min_bytes: 8, max_bytes: 4096, step_factor: 8, iterations: 3, warmup: 1}}\n";

TEST(MpiColl, EveryCollectiveValidatesWithBusBandwidth) {
    const auto result = run_registered_test("mpi_coll", tiny_coll);
    EXPECT_EQ(result.status, Status::pass) << result.reason;
    EXPECT_EQ(result.samples.size(), 5u * 4u + 1u);  // 5 data collectives x 4 sizes, one barrier row
    for (const double wrong : result.samples.column("wrong_elements")) EXPECT_EQ(wrong, 0.0);
    const double n = world_size();
    for (const auto* name : {"allreduce", "allgather", "reduce_scatter", "alltoall", "bcast"}) {
        const auto algbw = metric(result, std::string("mpi_coll.") + name + "_algbw_gbs");
        const auto busbw = metric(result, std::string("mpi_coll.") + name + "_busbw_gbs");
        ASSERT_TRUE(algbw && busbw) << name;
        EXPECT_GT(*algbw, 0.0) << name;
        const double factor = std::string(name) == "allreduce" ? 2 * (n - 1) / n
                              : std::string(name) == "bcast"   ? 1.0
                                                               : (n - 1) / n;
        EXPECT_NEAR(*busbw, *algbw * factor, 1e-9 * *algbw) << name;
    }
    EXPECT_GT(*metric(result, "mpi_coll.barrier_us"), 0.0);
    EXPECT_TRUE(metric(result, "mpi_coll.rank_time_ratio").has_value());
}

TEST(MpiColl, PlantedCorruptionFailsWithTheCountOfWrongElements) {
    const auto result = run_registered_test("mpi_coll", tiny_coll + "faults: [{kind: corrupt, test: mpi_coll, rank: 1}]\n");
    if (world_rank() != 1) {
        EXPECT_EQ(result.status, Status::pass) << result.reason;
        return;
    }
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.reason.rfind("20 wrong elements in 20 results: allreduce 8 B: 1 wrong element of 1 (first at index 0: got ", 0),
              0u)
        << result.reason;
    EXPECT_NE(result.reason.find("and 17 more results with wrong elements"), std::string::npos) << result.reason;
    double wrong = 0;
    for (const double w : result.samples.column("wrong_elements")) wrong += w;
    EXPECT_EQ(wrong, 20.0);
}

TEST(MpiColl, DelayedRankIsNamedSlowest) {
    const int slow = world_size() - 1;
    const auto result = run_registered_test(
        "mpi_coll", "params: {mpi_coll: {collectives: \"allreduce,bcast,barrier\", min_bytes: 64, max_bytes: 1024, "
                    "step_factor: 4, iterations: 4, warmup: 1}}\n"
                    "faults: [{kind: delay, test: mpi_coll, rank: " + std::to_string(slow) + ", seconds: 0.02}]\n");
    EXPECT_EQ(result.status, Status::pass) << result.reason;
    ASSERT_TRUE(metric(result, "mpi_coll.rank_time_ratio").has_value());
    if (world_rank() == slow) EXPECT_GT(*metric(result, "mpi_coll.rank_time_ratio"), 2.0);
    if (world_rank() != 0) return;
    ASSERT_TRUE(metric(result, "mpi_coll.slowest_rank").has_value());
    EXPECT_EQ(*metric(result, "mpi_coll.slowest_rank"), slow);
    EXPECT_GT(*metric(result, "mpi_coll.slowest_rank_ratio"), 2.0);
}

TEST(MpiColl, UnknownCollectiveIsAClearError) {
    expect_refused("mpi_coll", "params: {mpi_coll: {collectives: \"allreduce,allreduse\"}}\n",
                   "'params.mpi_coll.collectives' unknown value 'allreduse' (known: allreduce, allgather, reduce_scatter, "
                   "alltoall, bcast, barrier)");
}

TEST(MpiColl, UpsideDownSizeRangeIsAClearError) {
    expect_refused("mpi_coll", "params: {mpi_coll: {min_bytes: 1048576, max_bytes: 1024}}\n",
                   "size range is upside down: min_bytes 1048576 > max_bytes 1024");
}

}  // namespace
}  // namespace shakedown::testing
