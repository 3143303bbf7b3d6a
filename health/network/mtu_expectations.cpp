#include "health/network/mtu_expectations.hpp"

#include "core/errors.hpp"
#include "core/yaml_document.hpp"

#include <fmt/format.h>
#include <fnmatch.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

namespace shakedown::health {

// Read with the project's checked YAML loader (one document, no duplicate key, no alias, printable
// text); every key must be an interface name: a list or map as a key ("{[a, b]: 9000}") ended the
// run with yaml-cpp's conversion error (exit 3) instead of naming the parameter.
std::map<std::string, long long> parse_interface_mtu(const std::string& text) {
    std::map<std::string, long long> mtus;
    if (text.empty()) return mtus;
    const YAML::Node root = load_yaml_document(text, "network_mtu: interface_mtu");
    if (!root.IsMap())
        throw InputError(fmt::format("network_mtu: interface_mtu must be a map like '{{eth0: 9000}}', not '{}'", text));
    for (const auto& entry : root) {
        if (!entry.first.IsScalar())
            throw InputError(fmt::format("network_mtu: interface_mtu must map interface names to MTUs; a key of '{}' is "
                                         "not a name",
                                         text));
        const auto name = entry.first.Scalar();
        long long mtu = 0;
        try {
            mtu = entry.second.as<long long>();
        } catch (const YAML::Exception&) {
            throw InputError(fmt::format("network_mtu: interface_mtu for '{}' is not a number", name));
        }
        if (mtu < 68 || mtu > 65536)
            throw InputError(fmt::format("network_mtu: interface_mtu {} for '{}' is outside 68..65536", mtu, name));
        mtus[name] = mtu;
    }
    return mtus;
}

InterfaceVerdict judge_interfaces(const nlohmann::json& network, const MtuExpectations& expected,
                                  const std::string& job_interface) {
    InterfaceVerdict verdict;
    std::map<std::string, const nlohmann::json*> by_name;
    for (const auto& interface : network) by_name[interface.value("name", "")] = &interface;

    auto judge = [&](const nlohmann::json& interface, std::optional<long long> mtu, std::optional<long long> speed) {
        const std::string name = interface.value("name", "");
        verdict.checked.push_back(name);
        const long long found_mtu = interface.value("mtu", -1LL);
        if (mtu && found_mtu != *mtu) verdict.problems.push_back(fmt::format("{}: MTU {}, expected {}", name, found_mtu, *mtu));
        const long long found_speed = interface.value("speed_mbps", -1LL);
        if (speed && found_speed != *speed)
            verdict.problems.push_back(fmt::format("{}: speed {} Mb/s, expected {}", name,
                                                   found_speed < 0 ? std::string("unknown") : std::to_string(found_speed),
                                                   *speed));
    };

    for (const auto& [name, mtu] : expected.per_interface) {
        if (!by_name.count(name)) {
            verdict.problems.push_back(fmt::format("{}: named in interface_mtu but not on this node", name));
            continue;
        }
        judge(*by_name[name], mtu, expected.speed_mbps);
    }
    if (!expected.mtu && !expected.speed_mbps) return verdict;
    for (const auto& interface : network) {
        const std::string name = interface.value("name", "");
        if (expected.per_interface.count(name)) continue;
        const bool selected = expected.glob.empty() ? name == job_interface
                                                    : ::fnmatch(expected.glob.c_str(), name.c_str(), 0) == 0;
        if (selected) judge(interface, expected.mtu, expected.speed_mbps);
    }
    return verdict;
}

std::vector<Outlier> find_outliers(const std::vector<std::pair<std::string, long long>>& values) {
    std::map<long long, int> counts;
    for (const auto& [node, value] : values) ++counts[value];
    long long norm = 0;
    int best = -1;
    for (const auto& [value, count] : counts)  // ascending values: ">=" lets the larger win ties
        if (count >= best) {
            best = count;
            norm = value;
        }
    std::vector<Outlier> outliers;
    for (const auto& [node, value] : values)
        if (value != norm) outliers.push_back({node, value, norm});
    return outliers;
}

}  // namespace shakedown::health
