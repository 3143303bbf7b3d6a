// PKey agreement across nodes: every node leader's RDMA port tables carry the port's valid PKeys
// as read when sampling started (attribute "pkeys", telemetry/rdma_pkeys.hpp). Ports of one link
// layer should all hold the same partitions; a port whose set differs from the one most ports
// hold (a strict majority of the readable ports) is named with what it lacks and what it has
// extra. Without a strict majority every port's set is named. Filed under the pseudo-test
// "pkey_agreement", FAIL, cause configuration (the subnet manager's partition setup, not the
// hardware: the node is not drained, the run exits 2 with what to fix), rule "pkey_mismatch".
// A port whose table could not be read ("not_available.pkeys") is left out of the comparison and
// gives no finding: the trace says why. Fewer than two nodes with readable tables: nothing to compare.
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/model/finding.hpp"

#include <map>
#include <string>
#include <vector>

namespace shakedown::analysis {

inline constexpr const char* pkey_check = "pkey_agreement";

// One port's recorded PKeys (what the rule compares), from its node leader's trace.
struct PortPkeys {
    const RankIdentity* leader = nullptr;
    std::string port;        // the port table's name, "mlx5_0_port1"
    std::string link_layer;  // "InfiniBand", "Ethernet", "" when not recorded
    std::string pkeys;       // "0x7fff,0xffff" or "none"
};

// The comparison itself, on ports already read.
std::vector<Finding> pkey_findings(const std::vector<PortPkeys>& ports);

// The ports among one leader's telemetry tables whose PKeys were recorded (tables that are no
// RDMA port, or whose PKeys were not available, give none), in table name order.
std::vector<PortPkeys> port_pkeys(const RankIdentity* leader,
                                  const std::map<std::string, std::map<std::string, std::string>>& attributes);

}  // namespace shakedown::analysis
