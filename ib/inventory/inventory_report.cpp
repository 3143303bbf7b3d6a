#include "ib/inventory/inventory_report.hpp"

#include "ib/specs.hpp"

#include "core/clock.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace shakedown::ib {

TestResult report_hca_inventory(const VerbsApi& api, const PortExpectations& expected,
                                const std::function<void()>& between_readings) {
    TestResult result;
    const double before_utc = now_utc();
    const auto ports = read_hca_inventory(api);
    between_readings();
    const double after_utc = now_utc();
    const auto after = read_counters(api, ports);

    result.parameters["implementation"] = std::string(api.implementation());
    result.parameters["counters_before_utc"] = fmt::format("{:.3f}", before_utc);
    result.parameters["counters_after_utc"] = fmt::format("{:.3f}", after_utc);
    result.samples = SampleTable(ib_inventory_spec().samples);
    double slowest = -1;
    int active = 0;
    std::uint64_t error_growth = 0;
    for (std::size_t i = 0; i < ports.size(); ++i) {
        const auto& record = ports[i];
        const auto label = port_label(record);
        result.parameters["port " + label] = describe_port(record);
        result.parameters["counters " + label + " before"] = describe_counters(record.counters);
        result.parameters["counters " + label + " after"] = describe_counters(after[i]);
        const bool is_active = record.error.empty() && record.port.state == "ACTIVE";
        active += is_active ? 1 : 0;
        if (is_active && record.rate_gbps) slowest = slowest < 0 ? *record.rate_gbps : std::min(slowest, *record.rate_gbps);
        const auto errors_in = [](const PortCounters& counters) {
            std::uint64_t total = 0;
            for (const auto& [name, value] : counters) total += is_error_counter(name) ? value : 0;
            return total;
        };
        const auto v2 = std::count_if(record.gids.begin(), record.gids.end(),
                                      [](const GidEntry& g) { return g.type.find("v2") != std::string::npos; });
        for (const auto& [t, counters] : {std::pair{before_utc, &record.counters}, std::pair{after_utc, &after[i]}})
            result.samples.add_row({t, static_cast<double>(i), record.rate_gbps.value_or(0.0),
                                    static_cast<double>(record.port.active_mtu_bytes), is_active ? 1.0 : 0.0,
                                    static_cast<double>(v2), static_cast<double>(errors_in(*counters))});
    }
    for (const auto& miss : check_ports(ports, expected)) result.fail(miss);
    for (const auto& change : error_counter_changes(ports, after)) {
        error_growth += change.delta();
        result.fail(fmt::format("{}: {} grew by {} ({} -> {}) in {:.1f} s", change.port, change.counter, change.delta(),
                                change.before, change.after, after_utc - before_utc));
    }
    result.add_metric("ib_inventory.active_ports", active, static_cast<double>(ports.size()));
    if (slowest >= 0)
        result.add_metric("ib_inventory.min_port_rate_gbps", slowest,
                          expected.rate_gbps > 0 ? std::optional(expected.rate_gbps) : std::nullopt);
    result.add_metric("ib_inventory.error_counter_growth", static_cast<double>(error_growth));
    return result;
}

}  // namespace shakedown::ib
