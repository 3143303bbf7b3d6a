// The expected profile: what the site bought, per node class (a Slurm hostlist, or every node).
// shakedown judges every node against it: hardware that is missing or different is a FAIL that
// names what is missing, and a test the profile expects that did not run is a FAIL ("not run is
// not a pass"). Written by hand, by `shakedown profile --from RUN` from a reference run, or by
// `shakedown slurm generate --gpus-per-node N` (through `shakedown run --gpus-per-node N`).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::profile {

struct GpuExpectation {
    std::optional<std::string> model;      // substring of the GPU's name, case-insensitive ("H200")
    std::optional<double> memory_gib;      // each GPU at least this (within 2 %)
    std::vector<std::string> bus_ids;      // where they sit ("0000:19:00.0"): named when one is missing
    std::optional<int> nvlinks;            // active NVLink links per GPU, at least
    std::optional<int> pcie_generation;    // the link's maximum generation, at least
    std::optional<int> pcie_width;         // the link's maximum width, at least
};

struct HcaExpectation {
    std::optional<int> count;              // ACTIVE RDMA ports, at least
    std::optional<double> rate_gbps;       // each of them at least
    std::optional<std::string> link_layer; // "InfiniBand" or "Ethernet"
    std::optional<int> mtu;                // active MTU of each, exactly
};

struct NicExpectation {
    std::string name;                      // interface name ("eth0", "ib0")
    std::optional<int> mtu;                // exactly
};

struct NodeClass {
    std::string nodes;                     // a hostlist ("gpu[001-064]"), or "all"
    std::optional<int> gpus_per_node;
    GpuExpectation gpu;
    HcaExpectation hcas;
    std::vector<NicExpectation> nics;
    std::optional<std::string> cpu_model;  // substring of the CPU model
    std::optional<int> cpu_cores;          // physical cores per node, at least
    std::optional<double> memory_gib;      // per node, at least (within 3 %: firmware reserves some)
    std::vector<std::string> tests;        // must run on every node of the class (not waive)

    bool covers(const std::string& node) const;
    std::set<std::string> expanded;        // the hostlist's names (filled by parse_profile)
};

struct Profile {
    std::vector<NodeClass> classes;
    std::string source;  // the file, for messages

    // The first class naming `node`, nullptr for a node the profile does not know.
    const NodeClass* class_of(const std::string& node) const;
};

// Throws InputError "source:line: problem" for bad YAML, an unknown key, a wrong type or a bad
// hostlist; a test name is checked against `known_tests` (the registry's keys).
Profile parse_profile(std::string_view yaml_text, const std::string& source_name,
                      const std::vector<std::string>& known_tests);
Profile read_profile(const std::string& path, const std::vector<std::string>& known_tests);

// The profile as YAML (what `shakedown profile --from` prints), readable back by parse_profile.
std::string to_yaml(const Profile& profile);

// The minimal profile `--gpus-per-node N` records: every node has N GPUs.
Profile gpus_per_node_profile(int gpus);

}  // namespace shakedown::profile
