// NCCL buffer layouts and in-place placements (no GPU needed): sizes as nccl-tests counts them.
#include "core/errors.hpp"
#include "mpi/nccl/nccl_ops.hpp"
#include "mpi/specs.hpp"

#include <gtest/gtest.h>

namespace shakedown::mpi {
namespace {

TEST(NcclLayout, SizesFollowNcclTests) {
    const auto reduce = nccl_layout(NcclOpKind::all_reduce, 1024, 4);
    EXPECT_EQ(reduce.input_count, 256u);
    EXPECT_EQ(reduce.output_count, 256u);
    EXPECT_EQ(reduce.bytes, 1024u);
    const auto gather = nccl_layout(NcclOpKind::all_gather, 1024, 4);  // size = gathered output
    EXPECT_EQ(gather.input_count, 64u);
    EXPECT_EQ(gather.output_count, 256u);
    EXPECT_EQ(gather.bytes, 1024u);
    const auto scatter = nccl_layout(NcclOpKind::reduce_scatter, 1024, 4);  // size = scattered input
    EXPECT_EQ(scatter.input_count, 256u);
    EXPECT_EQ(scatter.output_count, 64u);
    const auto a2a = nccl_layout(NcclOpKind::alltoall, 1000, 3);  // rounded to whole blocks per rank
    EXPECT_EQ(a2a.chunk, 83u);
    EXPECT_EQ(a2a.bytes, 83u * 3u * 4u);
    EXPECT_EQ(nccl_layout(NcclOpKind::all_gather, 8, 4).bytes, 16u);  // at least one element per rank
}

TEST(NcclLayout, InPlacePointsIntoTheRightBlock) {
    float input[256];
    float output[256];
    const auto gather = nccl_layout(NcclOpKind::all_gather, 1024, 4);
    const auto g = nccl_placement(NcclOpKind::all_gather, gather, input, output, true, 2);
    EXPECT_EQ(g.output, output);
    EXPECT_EQ(g.input, output + 2 * 64);
    const auto scatter = nccl_layout(NcclOpKind::reduce_scatter, 1024, 4);
    const auto s = nccl_placement(NcclOpKind::reduce_scatter, scatter, input, output, true, 3);
    EXPECT_EQ(s.input, input);
    EXPECT_EQ(s.output, input + 3 * 64);
    const auto r = nccl_placement(NcclOpKind::all_reduce, nccl_layout(NcclOpKind::all_reduce, 1024, 4), input, output, true, 1);
    EXPECT_EQ(r.input, r.output);
    const auto o = nccl_placement(NcclOpKind::all_reduce, nccl_layout(NcclOpKind::all_reduce, 1024, 4), input, output, false, 1);
    EXPECT_EQ(o.input, input);
    EXPECT_EQ(o.output, output);
}

TEST(NcclOps, BusFactorsAreNcclTests) {
    EXPECT_DOUBLE_EQ(find_nccl_op("all_reduce")->bus_factor(8), 2.0 * 7 / 8);
    EXPECT_DOUBLE_EQ(find_nccl_op("all_gather")->bus_factor(8), 7.0 / 8);
    EXPECT_DOUBLE_EQ(find_nccl_op("reduce_scatter")->bus_factor(8), 7.0 / 8);
    EXPECT_DOUBLE_EQ(find_nccl_op("alltoall")->bus_factor(8), 7.0 / 8);
    EXPECT_DOUBLE_EQ(find_nccl_op("broadcast")->bus_factor(8), 1.0);
    EXPECT_DOUBLE_EQ(find_nccl_op("reduce")->bus_factor(8), 1.0);
    EXPECT_DOUBLE_EQ(find_nccl_op("sendrecv")->bus_factor(8), 1.0);
    EXPECT_EQ(find_nccl_op("allreduce"), nullptr);
}

TEST(NcclOps, EveryDeclaredCollectiveHasAnOp) {
    ASSERT_EQ(nccl_collective_names.size(), nccl_ops().size());
    for (const auto name : nccl_collective_names) EXPECT_NE(find_nccl_op(name), nullptr) << name;
}

}  // namespace
}  // namespace shakedown::mpi
