// The expected profile: its file (one clear line per mistake, YAML back out), and a node's
// inventory against its class: every difference named, a node that is what was bought not flagged.
#include "core/errors.hpp"
#include "profile/node_check.hpp"
#include "profile/profile.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

namespace shakedown::profile {
namespace {

const std::vector<std::string> known_tests = {"stream", "dgemm_fp64", "gemm_ladder", "nccl"};

const char* h200_class = R"(classes:
  - nodes: gpu[01-04]
    gpus_per_node: 2
    gpu: {model: H200, memory_gib: 139, bus_ids: ["0000:19:00.0", "0000:9b:00.0"], nvlinks: 18, pcie_generation: 5, pcie_width: 16}
    hcas: {count: 1, rate_gbps: 400, link_layer: InfiniBand, mtu: 4096}
    nics: [{name: eth0, mtu: 9000}]
    cpu: {model: Xeon, cores: 64}
    memory_gib: 2000
    tests: [stream, gemm_ladder]
)";

nlohmann::json h200_gpu(const std::string& bus_id, int nvlinks = 18) {
    return {{"nvml_index", 0}, {"name", "NVIDIA H200"}, {"uuid", "GPU-" + bus_id}, {"pci_bus_id", "0000" + bus_id},
            {"memory_bytes", 150754820096.0}, {"nvlink_active_links", nvlinks}, {"pcie_generation_max", 5},
            {"pcie_width_max", 16}};
}

// What a healthy node of the class reports.
nlohmann::json healthy_inventory() {
    return {{"nvml", {{"loaded", true}, {"devices", {h200_gpu(":19:00.0"), h200_gpu(":9b:00.0")}}}},
            {"rdma", {{{"name", "mlx5_0"},
                       {"ports", {{{"port", 1}, {"state", "PORT_ACTIVE"}, {"link_layer", "InfiniBand"},
                                   {"rate_gbps", 400}, {"active_mtu", 4096}}}}}}},
            {"network", {{{"name", "eth0"}, {"mtu", 9000}, {"operstate", "up"}}, {{"name", "lo"}, {"mtu", 65536}}}},
            {"cpu", {{"model", "Intel(R) Xeon(R) Platinum 8480+"}, {"cores", 112}}},
            {"memory", {{"total_bytes", 2164663517184.0}}}};
}

const NodeClass& only_class(const Profile& profile) { return profile.classes.at(0); }

TEST(Profile, ParsesClassesAndFindsANodesClass) {
    const Profile profile = parse_profile(h200_class, "p.yaml", known_tests);
    ASSERT_EQ(profile.classes.size(), 1u);
    EXPECT_NE(profile.class_of("gpu03"), nullptr);
    EXPECT_EQ(profile.class_of("gpu05"), nullptr);
    EXPECT_EQ(only_class(profile).gpus_per_node, 2);
    EXPECT_EQ(only_class(profile).tests, (std::vector<std::string>{"stream", "gemm_ladder"}));
}

TEST(Profile, YamlOutReadsBackTheSame) {
    const Profile profile = parse_profile(h200_class, "p.yaml", known_tests);
    const std::string yaml = to_yaml(profile);
    EXPECT_EQ(to_yaml(parse_profile(yaml, "again.yaml", known_tests)), yaml);
}

TEST(Profile, EachMistakeIsOneLineWithItsPlace) {
    auto error_of = [](const std::string& text) {
        try {
            (void)parse_profile(text, "p.yaml", known_tests);
        } catch (const InputError& error) {
            return std::string(error.what());
        }
        return std::string("(accepted)");
    };
    EXPECT_EQ(error_of("classes:\n  - nodes: all\n    gpus_per_nod: 8\n"),
              "p.yaml:3: unknown key 'gpus_per_nod' (expected nodes, gpus_per_node, gpu, hcas, nics, cpu, memory_gib, tests)");
    EXPECT_EQ(error_of("classes:\n  - nodes: all\n    tests: [strem]\n"),
              "p.yaml:3: tests: unknown test 'strem' (known: stream, dgemm_fp64, gemm_ladder, nccl)");
    EXPECT_NE(error_of("classes:\n  - nodes: gpu[3-1]\n").find("p.yaml:2: invalid hostlist 'gpu[3-1]'"), std::string::npos);
    EXPECT_EQ(error_of("classes:\n  - gpus_per_node: 8\n"), "p.yaml:2: a class needs 'nodes' (a hostlist, or all)");
    EXPECT_EQ(error_of("classes:\n  - nodes: all\n    gpus_per_node: eight\n"),
              "p.yaml:3: gpus_per_node: expected a number of at least 0, not 'eight'");
    EXPECT_NE(error_of("classes: [\n").find("p.yaml:"), std::string::npos);
    EXPECT_EQ(error_of("classes:\n  - nodes: all\n    gpus_per_node: 8\n    gpus_per_node: 4\n"),
              "p.yaml:4: duplicate key 'gpus_per_node' (first at line 3)");
    EXPECT_EQ(error_of("classes:\n  - nodes: all\n---\nclasses: []\n"),
              "p.yaml:3: a second YAML document (the file must hold one)");  // at its ---
    // Classes within the hostlist limit each, beyond it together (a 15 KB profile reached 4 GB).
    EXPECT_NE(error_of("classes:\n  - nodes: a[1-600]-[1-1000]\n  - nodes: b[1-600]-[1-1000]\n")
                  .find("p.yaml:3: invalid hostlist 'b[1-600]-[1-1000]': expands to 600000 names, more than the 400000 "
                        "left"),
              std::string::npos);
}

// --profile must name a regular file below 16 MiB, checked before it is opened.
TEST(Profile, ProfileFileMustBeARegularFileOfBoundedSize) {
    auto read_error = [](const std::string& path) {
        try {
            (void)read_profile(path, known_tests);
        } catch (const InputError& error) {
            return std::string(error.what());
        }
        return std::string("(accepted)");
    };
    EXPECT_EQ(read_error("/dev/zero"), "/dev/zero: cannot read the profile: not a regular file (a character device)");
    EXPECT_EQ(read_error("/nonexistent/p.yaml"), "/nonexistent/p.yaml: cannot read the profile: no such file");
    const auto dir = std::filesystem::temp_directory_path() / ("shakedown-profile-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto fifo = (dir / "fifo.yaml").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_EQ(read_error(fifo), fifo + ": cannot read the profile: not a regular file (a FIFO)");
    EXPECT_EQ(read_error(dir.string()), dir.string() + ": cannot read the profile: not a regular file (a directory)");
    std::filesystem::remove_all(dir);
}

TEST(NodeCheck, ANodeThatIsWhatWasBoughtHasNoDifference) {
    const Profile profile = parse_profile(h200_class, "p.yaml", known_tests);
    EXPECT_TRUE(differences(only_class(profile), node_facts(healthy_inventory())).empty());
}

TEST(NodeCheck, AMissingGpuIsNamedByItsBusId) {
    const Profile profile = parse_profile(h200_class, "p.yaml", known_tests);
    nlohmann::json inventory = healthy_inventory();
    inventory["nvml"]["devices"] = {h200_gpu(":19:00.0")};
    EXPECT_EQ(differences(only_class(profile), node_facts(inventory)),
              std::vector<std::string>{"1 of 2 GPUs (H200) found; missing 0000:9b:00.0"});
}

TEST(NodeCheck, EveryOtherShortfallIsNamed) {
    const Profile profile = parse_profile(h200_class, "p.yaml", known_tests);
    nlohmann::json inventory = healthy_inventory();
    inventory["nvml"]["devices"][1] = h200_gpu(":9b:00.0", 12);
    inventory["rdma"][0]["ports"][0]["rate_gbps"] = 200;
    inventory["network"][0]["mtu"] = 1500;
    inventory["memory"]["total_bytes"] = 1024.0 * 1024 * 1024 * 1024;
    const auto lines = differences(only_class(profile), node_facts(inventory));
    EXPECT_EQ(lines, (std::vector<std::string>{"GPU 0000:9b:00.0 has 12 active NVLink links, expected 18",
                                               "mlx5_0 port 1 runs at 200 Gb/s, expected 400",
                                               "interface eth0 has MTU 1500, expected 9000",
                                               "1024.0 GiB of memory found, expected 2000"}));
}

TEST(NodeCheck, NoNvmlFallsBackToWhatCudaShowed) {
    NodeClass one_gpu;
    one_gpu.nodes = "all";
    one_gpu.gpus_per_node = 1;
    EXPECT_EQ(differences(one_gpu, node_facts({{"nvml", {{"loaded", false}}}, {"gpus", nlohmann::json::array()}})),
              std::vector<std::string>{"0 of 1 GPUs found"});
}

}  // namespace
}  // namespace shakedown::profile
