#include "ib/inventory/hca_inventory.hpp"

#include "inventory/inventory_sections.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>

namespace shakedown::ib {

std::vector<PortRecord> read_hca_inventory(const VerbsApi& api) {
    std::vector<PortRecord> records;
    for (const auto& name : api.device_names()) {
        std::unique_ptr<DeviceContext> context;
        try {
            context = api.open(name);
        } catch (const VerbsError& error) {
            PortRecord failed;
            failed.device.name = name;
            failed.error = error.what();
            records.push_back(std::move(failed));
            continue;
        }
        for (int port = 1; port <= context->info().port_count; ++port) {
            PortRecord record;
            record.device = context->info();
            record.port.port = port;
            try {
                record.port = context->query_port(port);
                record.rate_gbps = inventory_detail::ib_rate_gbps(record.port.speed_code, record.port.width_code);
                record.gids = context->gid_table(port);
            } catch (const VerbsError& error) {
                record.error = error.what();
            }
            record.counters = api.port_counters(name, port);
            records.push_back(std::move(record));
        }
    }
    return records;
}

std::vector<PortCounters> read_counters(const VerbsApi& api, const std::vector<PortRecord>& ports) {
    std::vector<PortCounters> counters;
    for (const auto& record : ports) counters.push_back(api.port_counters(record.device.name, record.port.port));
    return counters;
}

std::vector<std::string> check_ports(const std::vector<PortRecord>& ports, const PortExpectations& expected) {
    std::vector<std::string> misses;
    for (const auto& record : ports) {
        const auto label = port_label(record);
        if (!record.error.empty()) {
            misses.push_back(fmt::format("{}: {}", label, record.error));
            continue;
        }
        if (!expected.state.empty() && record.port.state != expected.state)
            misses.push_back(fmt::format("{}: state {} ({}), expected {}", label, record.port.state,
                                         record.port.physical_state, expected.state));
        if (expected.rate_gbps > 0 && record.rate_gbps.value_or(0.0) < expected.rate_gbps)
            misses.push_back(fmt::format("{}: rate {} Gb/s, expected {}", label,
                                         record.rate_gbps ? fmt::format("{:g}", *record.rate_gbps) : "unknown",
                                         expected.rate_gbps));
        if (expected.mtu_bytes > 0 && record.port.active_mtu_bytes != expected.mtu_bytes)
            misses.push_back(fmt::format("{}: active MTU {} B, expected {} (port max {})", label,
                                         record.port.active_mtu_bytes, expected.mtu_bytes, record.port.max_mtu_bytes));
    }
    return misses;
}

bool is_error_counter(const std::string& name) {
    static constexpr std::array<std::string_view, 14> errors{"symbol_error",
                                                             "link_downed",
                                                             "link_error_recovery",
                                                             "port_rcv_errors",
                                                             "port_rcv_remote_physical_errors",
                                                             "port_rcv_switch_relay_errors",
                                                             "port_xmit_discards",
                                                             "port_xmit_constraint_errors",
                                                             "port_rcv_constraint_errors",
                                                             "local_link_integrity_errors",
                                                             "excessive_buffer_overrun_errors",
                                                             "VL15_dropped",
                                                             "out_of_sequence",
                                                             "packet_seq_err"};
    for (const auto error : errors)
        if (name == error) return true;
    return false;
}

std::vector<CounterChange> error_counter_changes(const std::vector<PortRecord>& before,
                                                 const std::vector<PortCounters>& after) {
    std::vector<CounterChange> changes;
    for (std::size_t i = 0; i < before.size() && i < after.size(); ++i)
        for (const auto& [name, value] : after[i]) {
            if (!is_error_counter(name)) continue;
            const auto earlier = before[i].counters.find(name);
            if (earlier == before[i].counters.end()) continue;
            CounterChange change{port_label(before[i]), name, earlier->second, value};
            if (change.delta() > 0) changes.push_back(change);
        }
    return changes;
}

std::string port_label(const PortRecord& record) { return fmt::format("{}/{}", record.device.name, record.port.port); }

std::string describe_port(const PortRecord& record) {
    if (!record.error.empty()) return record.error;
    const auto& p = record.port;
    std::vector<std::string> gids;
    for (const auto& gid : record.gids)
        gids.push_back(fmt::format("{}={}{}", gid.index, format_gid(gid.gid),
                                   gid.type.empty() ? "" : " (" + gid.type + ")"));
    const auto lanes = inventory_detail::ib_width_lanes(p.width_code);
    return fmt::format("{} {}, {} {}x = {} Gb/s, MTU {}/{} B, {}, LID {}, fw {}, NUMA {}, PCI {}, GIDs [{}]", p.state,
                       p.physical_state, inventory_detail::ib_speed_name(p.speed_code), lanes ? *lanes : 0,
                       record.rate_gbps ? fmt::format("{:g}", *record.rate_gbps) : "unknown", p.active_mtu_bytes,
                       p.max_mtu_bytes, to_string(p.link_layer), p.lid, record.device.firmware, record.device.numa_node,
                       record.device.pci_address.empty() ? "unknown" : record.device.pci_address, fmt::join(gids, ", "));
}

std::string describe_counters(const PortCounters& counters) {
    std::vector<std::string> items;
    for (const auto& [name, value] : counters) items.push_back(fmt::format("{}={}", name, value));
    return fmt::format("{}", fmt::join(items, " "));
}

}  // namespace shakedown::ib
