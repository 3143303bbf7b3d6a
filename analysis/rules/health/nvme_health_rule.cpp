#include "analysis/rules/health/nvme_health_rule.hpp"

#include "analysis/rules/health/telemetry_series.hpp"
#include "telemetry/nvme_health_columns.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <set>

namespace shakedown::analysis {
namespace {

namespace nvme_col = nvme_health_columns;

// The critical warning bits (NVMe base specification, SMART / Health Information log, byte 0).
constexpr std::array<const char*, 6> critical_warning_bits{"available spare below its threshold",
                                                           "temperature beyond a threshold",
                                                           "reliability degraded by media or internal errors",
                                                           "media placed in read-only mode",
                                                           "volatile memory backup failed",
                                                           "persistent memory region read-only"};

std::string warning_bits(std::uint32_t bits) {
    std::string text;
    for (std::size_t bit = 0; bit < critical_warning_bits.size(); ++bit)
        if ((bits >> bit) & 1U) text += (text.empty() ? "" : "; ") + std::string(critical_warning_bits[bit]);
    if (bits >> critical_warning_bits.size()) text += (text.empty() ? "" : "; ") + std::string("a reserved bit");
    return text;
}

// A field's unit, as the source declares it.
std::string unit_of(std::string_view field) {
    for (const auto& declared : nvme_col::fields)
        if (declared.name == field) return std::string(declared.unit);
    return {};
}

std::string fact(const std::map<std::string, std::string>& facts, std::string_view prefix, const std::string& controller) {
    const auto found = facts.find(std::string(prefix) + controller);
    return found != facts.end() && !found->second.empty() ? found->second : "?";
}

}  // namespace

std::vector<Finding> nvme_health_findings(const RankIdentity& leader, const SampleTable& table,
                                          const std::map<std::string, std::string>& facts,
                                          const AnalysisSettings& settings) {
    std::vector<Finding> findings;
    std::set<std::string> controllers;
    for (const auto& column : table.columns())
        if (const auto dot = column.name.find('.');
            dot != std::string::npos && column.name.substr(dot + 1) == nvme_col::critical_warning)
            controllers.insert(column.name.substr(0, dot));
    const double wear_warn = settings.nvme_wear_warn_percent_or_default();
    for (const std::string& controller : controllers) {
        const std::string drive = fmt::format("NVMe {} ({}, serial {})", controller,
                                              fact(facts, nvme_col::model_prefix, controller),
                                              fact(facts, nvme_col::serial_prefix, controller));
        const auto column = [&](std::string_view field) { return fmt::format("{}.{}", controller, field); };
        const auto add = [&](Level level, std::string_view field, const Series& s, double value, std::string what,
                             const char* rule) {
            Finding finding = make_finding(leader, nvme_health_check, level,
                                           fmt::format("{}: {} [rule {}]", drive, what, rule), FindingSource::hidden_faults);
            finding.gpu.reset();
            finding.gpu_uuid.clear();
            finding.metric = column(field);
            finding.value = value;
            finding.reference = s.first();
            finding.unit = unit_of(field);
            finding.cause = Cause::hardware;
            finding.evidence = Evidence::fault;
            findings.push_back(std::move(finding));
        };
        if (const Series warning = column_series(table, column(nvme_col::critical_warning), nvme_col::log_time);
            !warning.empty() && warning.max() > 0) {
            std::uint32_t bits = 0;
            for (const double value : warning.value) bits |= static_cast<std::uint32_t>(value);
            add(Level::fail, nvme_col::critical_warning, warning, bits,
                fmt::format("critical warning 0x{:02x} in the drive's health log ({}), first read at {}", bits,
                            warning_bits(bits), clock_time(warning.t.front())),
                "nvme_critical_warning");
        }
        if (const Series errors = column_series(table, column(nvme_col::media_errors), nvme_col::log_time);
            !errors.empty() && errors.last() > 0)
            add(Level::fail, nvme_col::media_errors, errors, errors.last(),
                fmt::format("{} media and data integrity errors in the drive's lifetime count ({} at the first reading): "
                            "data it could not recover",
                            format_number(errors.last()), format_number(errors.first())),
                "nvme_media_errors");
        if (const Series used = column_series(table, column(nvme_col::percentage_used), nvme_col::log_time);
            !used.empty() && used.last() >= wear_warn)
            add(Level::warn, nvme_col::percentage_used, used, used.last(),
                fmt::format("{} % of its rated endurance used, by the drive's own estimate (warn from {} %)",
                            format_number(used.last()), format_number(wear_warn)),
                "nvme_wear");
    }
    return findings;
}

}  // namespace shakedown::analysis
