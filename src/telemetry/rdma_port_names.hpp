// How RDMA port telemetry is named in a trace, shared by the telemetry source that writes it
// and the analyzer that judges it (header-only: the analyzer does not link the sampler).
//   /telemetry/mlx5_0_port1            one table per port: "<device>_port<n>"
//   column "error_symbol_error"        an error counter: any increase during a run is suspect
//   column "port_xmit_data"            a traffic counter: shown, never judged
// The prefix keeps the sysfs name readable after it and contains "error", which is what the
// telemetry explanation of a slow test looks for in non-GPU, non-host tables.
#pragma once

#include <string>
#include <string_view>

namespace shakedown {

inline constexpr std::string_view rdma_error_column_prefix = "error_";
inline constexpr std::string_view rdma_port_table_infix = "_port";

// When the counters in a row were last read from sysfs (rows in between repeat that reading).
inline constexpr std::string_view rdma_counters_time_column = "counters_t";
// The port's state as sysfs numbers it: 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE.
inline constexpr std::string_view rdma_port_state_column = "state";

// Attributes of a port table: its valid PKeys as read when the source started
// ("0x7fff,0xffff", "none"), or why they could not be read (telemetry/rdma_pkeys.hpp).
inline constexpr std::string_view rdma_pkeys_attribute = "pkeys";
inline constexpr std::string_view rdma_pkeys_not_available_attribute = "not_available.pkeys";
inline constexpr std::string_view rdma_link_layer_attribute = "link_layer";

inline std::string rdma_port_table_name(std::string_view device, int port) {
    return std::string(device) + std::string(rdma_port_table_infix) + std::to_string(port);
}

// Whether a telemetry table is an RDMA port's ("mlx5_0_port1"): what the analyzer reads for the
// port counter and PKey rules.
inline bool is_rdma_port_table(std::string_view table) { return table.find(rdma_port_table_infix) != std::string_view::npos; }

inline bool is_rdma_error_column(std::string_view column) { return column.starts_with(rdma_error_column_prefix); }

// "error_symbol_error" -> "symbol_error" (the sysfs file name).
inline std::string_view rdma_counter_of_column(std::string_view column) {
    return is_rdma_error_column(column) ? column.substr(rdma_error_column_prefix.size()) : column;
}

}  // namespace shakedown
