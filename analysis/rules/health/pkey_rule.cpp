#include "analysis/rules/health/pkey_rule.hpp"

#include "telemetry/rdma_port_names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <set>
#include <sstream>

namespace shakedown::analysis {
namespace {

std::set<std::string> split(const std::string& pkeys) {
    std::set<std::string> out;
    if (pkeys == "none") return out;
    std::stringstream in(pkeys);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) out.insert(item);
    return out;
}

std::string join(const std::set<std::string>& items) {
    std::string text;
    for (const std::string& item : items) text += (text.empty() ? "" : ",") + item;
    return text.empty() ? "none" : text;
}

// "mlx5_0_port1" -> "mlx5_0 port 1".
std::string port_label(const std::string& table) {
    const auto at = table.rfind(rdma_port_table_infix);
    return at == std::string::npos ? table
                                   : table.substr(0, at) + " port " + table.substr(at + rdma_port_table_infix.size());
}

Finding mismatch(const PortPkeys& port, const std::string& what) {
    Finding finding = make_finding(*port.leader, pkey_check, Level::fail,
                                   fmt::format("{}: {} [rule pkey_mismatch]", port_label(port.port), what),
                                   FindingSource::pkeys);
    finding.gpu.reset();
    finding.gpu_uuid.clear();
    finding.metric = std::string(rdma_pkeys_attribute);
    finding.cause = Cause::configuration;  // the subnet manager's partitions: fix the setup, not the node
    return finding;
}

void compare(const std::vector<const PortPkeys*>& ports, std::vector<Finding>& findings) {
    std::set<std::string> nodes;
    std::map<std::string, int> holders;  // pkeys text -> ports holding it
    for (const PortPkeys* port : ports) {
        nodes.insert(port->leader->node);
        ++holders[port->pkeys];
    }
    if (nodes.size() < 2 || holders.size() < 2) return;
    const auto most =
        std::max_element(holders.begin(), holders.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    const bool majority = 2 * most->second > static_cast<int>(ports.size());
    if (!majority) {
        std::string sets;
        for (const auto& [pkeys, count] : holders)
            sets += fmt::format("{}{} ({} ports)", sets.empty() ? "" : "; ", pkeys, count);
        for (const PortPkeys* port : ports)
            findings.push_back(mismatch(*port, fmt::format("PKeys {}: the {} ports compared agree on no set ({})",
                                                           port->pkeys, ports.size(), sets)));
        return;
    }
    const std::set<std::string> reference = split(most->first);
    for (const PortPkeys* port : ports) {
        if (port->pkeys == most->first) continue;
        const std::set<std::string> mine = split(port->pkeys);
        std::set<std::string> missing, extra;
        std::set_difference(reference.begin(), reference.end(), mine.begin(), mine.end(),
                            std::inserter(missing, missing.end()));
        std::set_difference(mine.begin(), mine.end(), reference.begin(), reference.end(), std::inserter(extra, extra.end()));
        std::string what = fmt::format("PKeys {} differ from the {} of {} ports that hold {}", port->pkeys, most->second,
                                       ports.size(), most->first);
        if (!missing.empty()) what += fmt::format("; missing {}", join(missing));
        if (!extra.empty()) what += fmt::format("; extra {}", join(extra));
        findings.push_back(mismatch(*port, what));
    }
}

}  // namespace

std::vector<Finding> pkey_findings(const std::vector<PortPkeys>& ports) {
    std::vector<Finding> findings;
    std::map<std::string, std::vector<const PortPkeys*>> by_layer;  // RoCE and IB ports are not compared
    for (const PortPkeys& port : ports)
        if (port.leader != nullptr) by_layer[port.link_layer].push_back(&port);
    for (const auto& [layer, group] : by_layer) compare(group, findings);
    return findings;
}

std::vector<PortPkeys> port_pkeys(const RankIdentity* leader,
                                  const std::map<std::string, std::map<std::string, std::string>>& attributes) {
    std::vector<PortPkeys> ports;
    for (const auto& [table, facts] : attributes) {
        if (!is_rdma_port_table(table)) continue;
        const auto pkeys = facts.find(std::string(rdma_pkeys_attribute));
        if (pkeys == facts.end()) continue;  // its PKeys not available
        const auto layer = facts.find(std::string(rdma_link_layer_attribute));
        ports.push_back({leader, table, layer != facts.end() ? layer->second : "", pkeys->second});
    }
    return ports;
}

}  // namespace shakedown::analysis
