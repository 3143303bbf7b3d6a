#include "hostlist/node_name.hpp"

#include "core/errors.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace shakedown::slurm {
namespace {

TEST(NodeName, AcceptsHostNames) {
    for (const std::string& name : std::vector<std::string>{"node01", "gpu-a1", "n", "node7.cluster.example", "1node", std::string(63, 'a'),
                                   "gpu_node01", "node_1", "node-", "rack1.node_02", std::string(64, 'a')})
        EXPECT_TRUE(is_valid_node_name(name)) << name;
}

TEST(NodeName, RejectsAnythingAShellOrScontrolCouldMisread) {
    for (const std::string& name : std::vector<std::string>{"", "node 1", "node;rm -rf", "node\"x", "node'x", "node$x", "node`x`", "-node",
                                   ".node", "node=1", "node\n1", "node/1", "node,1", "node[1]", "node*", std::string("no\0de", 5)})
        EXPECT_FALSE(is_valid_node_name(name)) << name;
}

TEST(NodeName, TotalLengthLimited) {
    std::string name;
    for (int i = 0; i < 4; ++i) name += std::string(63, 'a') + ".";
    name.pop_back();  // 255 characters
    EXPECT_FALSE(is_valid_node_name(name));
    EXPECT_TRUE(is_valid_node_name(name.substr(2)));  // 253
}

TEST(NodeName, RequireThrowsInputErrorNamingTheName) {
    EXPECT_NO_THROW(require_valid_node_name("node1"));
    try {
        require_valid_node_name("bad name", "drain node");
        FAIL();
    } catch (const InputError& error) {
        EXPECT_NE(std::string(error.what()).find("invalid drain node 'bad name'"), std::string::npos) << error.what();
    }
}

}  // namespace
}  // namespace shakedown::slurm
