// Every HCA port of this node as ib_inventory reports it, the checks against what the
// acceptance config expects (rate, MTU, state), and port error counters compared between two
// readings. Pure functions over a VerbsApi, so the fake can plant a counter change.
#pragma once

#include "ib/verbs/verbs_api.hpp"

#include <optional>
#include <string>
#include <vector>

namespace shakedown::ib {

struct PortRecord {
    DeviceInfo device;
    PortInfo port;
    std::optional<double> rate_gbps;  // nominal, from speed and width; nothing for unknown codes
    std::vector<GidEntry> gids;
    PortCounters counters;
    std::string error;  // the device or port could not be queried
};

// Opens every device; a device that cannot be opened becomes one record with `error` set.
std::vector<PortRecord> read_hca_inventory(const VerbsApi& api);
// Re-reads the counters of the same ports.
std::vector<PortCounters> read_counters(const VerbsApi& api, const std::vector<PortRecord>& ports);

struct PortExpectations {
    double rate_gbps = 0.0;        // 0: not checked
    int mtu_bytes = 0;             // active MTU; 0: not checked
    std::string state = "ACTIVE";  // empty: not checked
};

// One line per port that misses an expectation ("mlx5_1 port 1: rate 100 Gb/s, expected 200").
std::vector<std::string> check_ports(const std::vector<PortRecord>& ports, const PortExpectations& expected);

// Counters that count faults (as opposed to traffic: port_xmit_data, unicast packets, ...).
bool is_error_counter(const std::string& name);

struct CounterChange {
    std::string port;  // "mlx5_0/1"
    std::string counter;
    std::uint64_t before = 0;
    std::uint64_t after = 0;
    std::uint64_t delta() const { return after >= before ? after - before : 0; }
};
// Error counters that grew between the readings (a counter that went down was reset: ignored).
std::vector<CounterChange> error_counter_changes(const std::vector<PortRecord>& before,
                                                 const std::vector<PortCounters>& after);

std::string port_label(const PortRecord& record);             // "mlx5_0/1"
std::string describe_port(const PortRecord& record);          // one line for the trace's parameters
std::string describe_counters(const PortCounters& counters);  // "link_downed=0 symbol_error=3 ..."

}  // namespace shakedown::ib
