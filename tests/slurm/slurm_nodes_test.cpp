// slurm_nodes.txt as the job script writes it (docs/slurm.md): which nodes Slurm held unusable.
#include "slurm/slurm_nodes.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace shakedown::slurm {
namespace {

constexpr const char* example = "# shakedown slurm_nodes v1: job 4242, nodes node[1-4], run step exit code 137\n"
                                "# NODE STATE REASON: sinfo -N -h -n NODELIST -o '%N %T %E' after the run step\n"
                                "node1 allocated none\n"
                                "node2 mixed+drain Kill task failed\n"
                                "node3 down* Not responding\n"
                                "node4 idle~ none\n";

TEST(SlurmNodes, ParsesNodesStatesAndReasons) {
    const auto record = parse_slurm_nodes(example);
    ASSERT_EQ(record.nodes.size(), 4u);
    EXPECT_EQ(record.nodes[0].node, "node1");
    EXPECT_EQ(record.nodes[0].state, "allocated");
    EXPECT_EQ(record.nodes[0].reason, "");  // sinfo's "none"
    EXPECT_EQ(record.nodes[2].state, "down*");
    EXPECT_EQ(record.nodes[2].reason, "Not responding");
    ASSERT_EQ(record.comments.size(), 2u);
    EXPECT_EQ(record.comments[0], "shakedown slurm_nodes v1: job 4242, nodes node[1-4], run step exit code 137");
}

TEST(SlurmNodes, UnusableNodesAreDownDrainedFailedOrNotResponding) {
    const auto unusable = unusable_nodes(parse_slurm_nodes(example));
    ASSERT_EQ(unusable.size(), 2u);
    EXPECT_EQ(unusable[0].node, "node2");
    EXPECT_EQ(unusable[1].node, "node3");
}

TEST(SlurmNodes, StateRule) {
    for (const auto* state : {"down", "down*", "DOWN", "drained", "draining", "drain", "fail", "failing", "inval",
                              "allocated*", "mixed+drain", "idle+drain$", "down~"})
        EXPECT_TRUE(is_unusable_node_state(state)) << state;
    // Power saving and maintenance are not faults: "powered_down" is not "down".
    for (const auto* state : {"allocated", "mixed", "idle", "completing", "idle~", "powered_down", "powering_down",
                              "reserved", "maint", "idle#", "allocated-", ""})
        EXPECT_FALSE(is_unusable_node_state(state)) << state;
}

TEST(SlurmNodes, SkipsWhatItCannotRead) {
    const auto record = parse_slurm_nodes("\n  \nlonely\n-rf down* x\nnode5 down  Not  responding \r\n# sinfo failed\n");
    ASSERT_EQ(record.nodes.size(), 1u);
    EXPECT_EQ(record.nodes[0].node, "node5");
    EXPECT_EQ(record.nodes[0].reason, "Not  responding");
    EXPECT_EQ(record.comments, std::vector<std::string>{"sinfo failed"});
}

TEST(SlurmNodes, ReadsTheRunFolderOrSaysThereIsNone) {
    const auto folder = std::filesystem::temp_directory_path() / ("shakedown-slurm-nodes-" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder);
    EXPECT_FALSE(read_slurm_nodes(folder).has_value());
    std::ofstream(folder / slurm_nodes_file_name) << example;
    const auto record = read_slurm_nodes(folder);
    ASSERT_TRUE(record.has_value());
    EXPECT_EQ(record->nodes.size(), 4u);
    // A FIFO in its place is not opened (it would block for ever), nor a folder.
    std::filesystem::remove(folder / slurm_nodes_file_name);
    ASSERT_EQ(::mkfifo((folder / slurm_nodes_file_name).c_str(), 0600), 0);
    EXPECT_FALSE(read_slurm_nodes(folder).has_value());
    std::filesystem::remove(folder / slurm_nodes_file_name);
    std::filesystem::create_directory(folder / slurm_nodes_file_name);
    EXPECT_FALSE(read_slurm_nodes(folder).has_value());
    std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace shakedown::slurm
