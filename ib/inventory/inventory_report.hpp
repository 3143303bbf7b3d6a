// What ib_inventory records: each port described in the result's parameters, the checks
// against expectations, error counters read twice (before and after `between_readings`) with
// their times as samples, and the metrics. Works on any VerbsApi, so tests use the fake.
#pragma once

#include "core/result.hpp"
#include "ib/inventory/hca_inventory.hpp"

#include <functional>

namespace shakedown::ib {

TestResult report_hca_inventory(const VerbsApi& api, const PortExpectations& expected,
                                const std::function<void()>& between_readings);

}  // namespace shakedown::ib
