// What the network_mtu test expects of the interfaces, and the judgement of what it found:
// a configured MTU/speed per interface, and agreement across nodes (a node whose job
// interface MTU differs from the others' is the one to fix).
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::health {

struct MtuExpectations {
    std::optional<long long> mtu;             // for every interface matching `glob`
    std::string glob;                         // fnmatch pattern; empty = the job interface only
    std::map<std::string, long long> per_interface;  // overrides: exact names
    std::optional<long long> speed_mbps;      // same interfaces as `mtu`
};

// `text` is a YAML map "{eth0: 9000, ib0: 4096}" (empty = none). Throws InputError naming
// what does not parse.
std::map<std::string, long long> parse_interface_mtu(const std::string& text);

struct InterfaceVerdict {
    std::vector<std::string> checked;   // names judged
    std::vector<std::string> problems;  // one line each: "eth0: MTU 1500, expected 9000"
};

// Judges the inventory's network array against the expectations.
InterfaceVerdict judge_interfaces(const nlohmann::json& network, const MtuExpectations& expected,
                                  const std::string& job_interface);

// Nodes whose value differs from the most common one (ties: the larger value counts as the
// norm, so a single jumbo-less node stands out). Input: (node, value) in any order.
struct Outlier {
    std::string node;
    long long value = 0;
    long long norm = 0;
};
std::vector<Outlier> find_outliers(const std::vector<std::pair<std::string, long long>>& values);

}  // namespace shakedown::health
