#include "analysis/rules/health/hidden_fault_rule.hpp"

#include "analysis/rules/health/nvme_health_rule.hpp"
#include "analysis/rules/health/telemetry_series.hpp"
#include "analysis/rules/health/xid_catalogue.hpp"
#include "core/clock.hpp"
#include "hardware/gpu_spec_table.hpp"
#include "telemetry/nvme_health_columns.hpp"
#include "telemetry/telemetry_columns.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <string_view>

namespace shakedown::analysis {
namespace {

namespace col = telemetry_columns::gpu_health;

// A column's finite readings, timed by the table's counter-read times (else its sample times).
Series series(const SampleTable& table, std::string_view name) {
    return table.column_index(col::counters_time) ? column_series(table, name, col::counters_time)
                                                  : column_series(table, name, "t");
}

// The GPU a health table describes, and the rank bound to it (else the leader, without a GPU).
struct HealthGpu {
    const RankIdentity* who = nullptr;
    std::optional<int> gpu;
    std::string uuid;
    std::string label;  // "GPU-xxxx (health_gpu0, 00000000:19:00.0)"
};

HealthGpu gpu_of(const Observations& observations, const NodeRow& node, const std::string& table,
                 const std::map<std::string, std::string>& facts) {
    HealthGpu gpu;
    const auto uuid = facts.find(std::string(col::gpu_uuid_attribute));
    if (uuid != facts.end()) gpu.uuid = uuid->second;
    gpu.who = observations.rank(node.leader->rank);
    gpu.gpu = std::nullopt;
    for (int rank : node.ranks) {
        const RankIdentity* identity = observations.rank(rank);
        if (identity != nullptr && !gpu.uuid.empty() && identity->gpu_uuid == gpu.uuid) {
            gpu.who = identity;
            gpu.gpu = identity->gpu;
            break;
        }
    }
    const auto bus = facts.find("pci_bus_id");
    gpu.label = fmt::format("{} ({}{}{})", gpu.uuid.empty() ? table : gpu.uuid, table, bus != facts.end() ? ", " : "",
                            bus != facts.end() ? bus->second : "");
    return gpu;
}

// How many active NVLink links the GPU must have, and who says so: the node's class in the
// profile (gpu.nvlinks), else gpu_health.nvlink_expected_links, else the spec table's count for
// the part (by the table's gpu_name), else as many as NVML answers for (`reported`).
struct ExpectedLinks {
    double links = 0;
    std::string source;
};

ExpectedLinks expected_links(const profile::Profile* profile, const std::string& node,
                             const std::map<std::string, std::string>& facts, const AnalysisSettings& settings,
                             double reported) {
    if (profile != nullptr)
        if (const profile::NodeClass* expected = profile->class_of(node); expected != nullptr && expected->gpu.nvlinks)
            return {static_cast<double>(*expected->gpu.nvlinks), "profile gpu.nvlinks"};
    if (settings.nvlink_expected_links) return {*settings.nvlink_expected_links, "gpu_health.nvlink_expected_links"};
    if (const auto name = facts.find(std::string(col::gpu_name_attribute)); name != facts.end())
        if (const auto part = hardware::part_nvlinks(name->second))
            return {static_cast<double>(part->links), "spec table: " + part->part};
    return {reported, "as NVML reports for the GPU"};
}

class Judge {
public:
    Judge(const HealthGpu& gpu, const AnalysisSettings& settings, std::vector<Finding>& findings,
          const profile::Profile* profile = nullptr, std::string node = {},
          const std::map<std::string, std::string>* facts = nullptr)
        : gpu_(gpu), settings_(settings), findings_(findings), profile_(profile), node_(std::move(node)), facts_(facts) {}

    ExpectedLinks expected_links(double reported) const {
        static const std::map<std::string, std::string> none;
        return analysis::expected_links(profile_, node_, facts_ != nullptr ? *facts_ : none, settings_, reported);
    }

    void add(Level level, const std::string& rule, std::string_view counter, std::optional<double> before,
             std::optional<double> after, const std::string& what) {
        if (gpu_.who == nullptr) return;
        Finding finding = make_finding(*gpu_.who, gpu_health_check, level,
                                       fmt::format("{}: {} [rule {}]", gpu_.label, what, rule),
                                       FindingSource::hidden_faults);
        finding.gpu = gpu_.gpu;
        finding.gpu_uuid = gpu_.uuid;
        finding.metric = std::string(counter);
        finding.value = after;
        finding.reference = before;
        finding.unit = counter == "xid" ? "Xid" : "count";
        finding.cause = Cause::hardware;
        finding.evidence = Evidence::fault;
        findings_.push_back(std::move(finding));
    }

    // A counter's rise over the run: `level` when it rose at all.
    void rise(const SampleTable& table, std::string_view counter, const std::string& rule, Level level,
              std::string_view words) {
        const Series s = series(table, counter);
        if (s.value.size() < 2 || s.rise() <= 0) return;
        add(level, rule, counter, s.first(), s.last(),
            fmt::format("{} {} {} -> {} (+{}) during the run ({}-{})", words, counter, format_number(s.first()),
                        format_number(s.last()), format_number(s.rise()), clock_time(s.t.front()), clock_time(s.t.back())));
    }

    // A 0/1 state that was 1 at any reading.
    void flag(const SampleTable& table, std::string_view column, const std::string& rule, const std::string& words) {
        const Series s = series(table, column);
        if (s.empty() || s.max() < 1) return;
        std::size_t at = 0;
        while (s.value[at] < 1) ++at;
        add(Level::fail, rule, column, s.first(), s.last(),
            fmt::format("{} ({} = 1 at {})", words, column, clock_time(s.t[at])));
    }

    // Row remapper banks in a histogram bin (a count of banks) above zero at any reading.
    void banks(const SampleTable& table, std::string_view column, const std::string& rule, Level level,
               const std::string& words) {
        const Series s = series(table, column);
        if (s.empty() || s.max() < 1) return;
        const Series all = series(table, col::remap_bank_max);
        add(level, rule, column, s.first(), s.max(),
            fmt::format("{} = {}: {}{}", column, format_number(s.max()), words,
                        all.empty() ? "" : fmt::format("; {} banks with all", format_number(all.last()))));
    }

    const AnalysisSettings& settings() const { return settings_; }

private:
    const HealthGpu& gpu_;
    const AnalysisSettings& settings_;
    std::vector<Finding>& findings_;
    const profile::Profile* profile_;
    std::string node_;
    const std::map<std::string, std::string>* facts_;
};

std::string down_links(double mask) {
    std::string text;
    const auto bits = static_cast<unsigned long long>(mask);
    for (unsigned link = 0; link < 64; ++link)
        if ((bits >> link) & 1ull) text += (text.empty() ? "" : ", ") + std::to_string(link);
    return text;
}

void judge_table(const SampleTable& table, Judge& judge) {
    judge.flag(table, col::remap_pending, "remap_pending", "a row remap is pending: reset the GPU to apply it");
    judge.flag(table, col::remap_failure, "remap_failure", "a row remap failed: the GPU is out of spare rows");
    judge.flag(table, col::retired_pages_pending, "retired_pages_pending",
               "a page retirement is pending: reset the GPU to apply it");
    // Short reasons: the drain line's reason is cut at Slurm's length.
    judge.banks(table, col::remap_bank_none, "remap_bank_none", Level::fail,
                "memory banks without a spare row (a failing row there cannot be remapped)");
    judge.banks(table, col::remap_bank_low, "remap_bank_low", Level::warn, "memory banks with few spare rows left");
    judge.rise(table, col::ecc_dbe_volatile, "ecc_dbe_rise", Level::fail, "uncorrected (double-bit) ECC");
    judge.rise(table, col::remap_uncorrected, "remap_uncorrected_rise", Level::fail, "rows remapped for uncorrected errors");
    judge.rise(table, col::ecc_sbe_volatile, "ecc_sbe_rise", Level::warn, "corrected (single-bit) ECC");
    judge.rise(table, col::remap_corrected, "remap_corrected_rise", Level::warn, "rows remapped for corrected errors");
    judge.rise(table, col::retired_pages_sbe, "retired_pages_rise", Level::warn, "retired pages (single-bit)");
    judge.rise(table, col::retired_pages_dbe, "retired_pages_rise", Level::warn, "retired pages (double-bit)");

    if (const Series replay = series(table, col::pcie_replay); replay.value.size() >= 2 && replay.rise() > 0) {
        const double limit = judge.settings().pcie_replay_fail_rise_or_default();
        const bool large = replay.rise() > limit;
        judge.add(large ? Level::fail : Level::warn, "pcie_replay_rise", col::pcie_replay, replay.first(), replay.last(),
                  fmt::format("PCIe replay counter {} -> {} (+{}) during the run ({}-{}); {} above +{}",
                              format_number(replay.first()), format_number(replay.last()), format_number(replay.rise()),
                              clock_time(replay.t.front()), clock_time(replay.t.back()), large ? "fail" : "fail only",
                              format_number(limit)));
    }

    const Series links = series(table, col::nvlink_links);
    const Series up = series(table, col::nvlink_links_up);
    if (!links.empty() && !up.empty()) {
        const ExpectedLinks expected = judge.expected_links(links.max());
        const Series mask = series(table, col::nvlink_down_mask);
        if (up.min() < expected.links) {
            std::size_t at = 0;
            while (up.value[at] >= expected.links) ++at;
            // The missing link ids: those NVML answers for as inactive (the mask), and those past
            // the last link it answers for, up to the expected count.
            std::string which = !mask.empty() && mask.max() > 0 ? fmt::format(" (inactive: link {})", down_links(mask.max()))
                                                                : "";
            if (links.max() < expected.links) {
                std::string absent;
                for (double link = links.max(); link < expected.links; ++link)
                    absent += (absent.empty() ? "" : ", ") + format_number(link);
                which += fmt::format(" (not reported by NVML: link {})", absent);
            }
            judge.add(Level::fail, "nvlink_down", col::nvlink_links_up, up.first(), up.last(),
                      fmt::format("{} of {} NVLink links active at {}{}, expected {} ({})", format_number(up.value[at]),
                                  format_number(links.max()), clock_time(up.t[at]), which, format_number(expected.links),
                                  expected.source));
        }
    }
    judge.rise(table, col::nvlink_crc, "nvlink_error_rise", Level::warn, "NVLink CRC errors");
    judge.rise(table, col::nvlink_replay, "nvlink_error_rise", Level::warn, "NVLink replays");
    judge.rise(table, col::nvlink_recovery, "nvlink_error_rise", Level::warn, "NVLink recoveries");

    if (const Series state = series(table, col::fabric_state); !state.empty() && state.last() != 3) {
        judge.add(Level::fail, "fabric_state", col::fabric_state, state.first(), state.last(),
                  fmt::format("GPU fabric registration not completed at the end of the run (state {}: {})",
                              format_number(state.last()),
                              state.last() == 1   ? "not started"
                              : state.last() == 2 ? "in progress"
                                                  : "unknown"));
    }
    if (const Series status = series(table, col::fabric_status); !status.empty() && status.max() != 0) {
        judge.add(Level::fail, "fabric_status", col::fabric_status, status.first(), status.last(),
                  fmt::format("GPU fabric registration completed with error status {} (an nvmlReturn_t)",
                              format_number(status.max())));
    }
}

// "nvml_xid health_gpu0 GPU-... xid=79" -> {table, xid}.
struct XidEvent {
    std::string table;
    unsigned xid = 0;
};

std::optional<XidEvent> xid_of(const Event& event) {
    if (!std::string_view(event.text).starts_with(col::xid_event_prefix)) return std::nullopt;
    const std::string rest = event.text.substr(col::xid_event_prefix.size());
    const auto space = rest.find(' ');
    const auto at = rest.rfind("xid=");
    if (space == std::string::npos || at == std::string::npos) return std::nullopt;
    try {
        return XidEvent{rest.substr(0, space), static_cast<unsigned>(std::stoul(rest.substr(at + 4)))};
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// PCIe AER totals (telemetry/pcie_aer_telemetry.hpp): "<bdf>.aer_<kind>" columns of "pcie_aer".
void judge_aer(const RankIdentity& leader, const SampleTable& table, const std::map<std::string, std::string>& facts,
               const AnalysisSettings& settings, std::vector<Finding>& findings) {
    const double correctable_limit = settings.aer_correctable_warn_rise_or_default();
    for (const auto& column : table.columns()) {
        const auto dot = column.name.rfind(".aer_");
        if (dot == std::string::npos) continue;
        const std::string bdf = column.name.substr(0, dot);
        const std::string kind = column.name.substr(dot + 5);
        const Series s = series(table, column.name);
        if (s.value.size() < 2 || s.rise() <= 0) continue;
        Level level = Level::pass;
        std::string rule;
        if (kind == "fatal") level = Level::fail, rule = "aer_fatal_rise";
        else if (kind == "nonfatal") level = Level::warn, rule = "aer_nonfatal_rise";
        else if (kind == "correctable" && s.rise() > correctable_limit) level = Level::warn, rule = "aer_correctable_rise";
        if (level == Level::pass) continue;
        const auto role = facts.find("role." + bdf);
        Finding finding = make_finding(
            leader, pcie_aer_check, level,
            fmt::format("PCIe {} {}: AER {} errors {} -> {} (+{}) during the run ({}-{}){} [rule {}]",
                        role != facts.end() ? role->second : "device", bdf, kind, format_number(s.first()),
                        format_number(s.last()), format_number(s.rise()), clock_time(s.t.front()), clock_time(s.t.back()),
                        kind == "correctable" ? fmt::format("; warn above +{}", format_number(correctable_limit)) : "",
                        rule),
            FindingSource::hidden_faults);
        finding.gpu.reset();
        finding.gpu_uuid.clear();
        finding.metric = column.name;
        finding.value = s.last();
        finding.reference = s.first();
        finding.unit = "count";
        finding.cause = Cause::hardware;
        finding.evidence = Evidence::fault;
        findings.push_back(std::move(finding));
    }
}

}  // namespace

std::vector<Finding> hidden_fault_findings(const Observations& observations, const NodeRow& node,
                                           const std::map<std::string, SampleTable>& telemetry,
                                           const std::map<std::string, std::map<std::string, std::string>>& attributes,
                                           const std::vector<Event>& events, const AnalysisSettings& settings,
                                           const profile::Profile* profile) {
    std::vector<Finding> findings;
    if (node.leader == nullptr) return findings;
    static const std::map<std::string, std::string> no_facts;
    const auto facts_of = [&](const std::string& table) -> const std::map<std::string, std::string>& {
        const auto found = attributes.find(table);
        return found != attributes.end() ? found->second : no_facts;
    };
    for (const auto& [name, table] : telemetry) {
        if (!name.starts_with(telemetry_columns::gpu_health_table_prefix)) continue;
        const HealthGpu gpu = gpu_of(observations, node, name, facts_of(name));
        Judge judge(gpu, settings, findings, profile, node.name, &facts_of(name));
        judge_table(table, judge);
    }
    if (const auto aer = telemetry.find(pcie_aer_table_name); aer != telemetry.end())
        if (const RankIdentity* leader = observations.rank(node.leader->rank))
            judge_aer(*leader, aer->second, facts_of(pcie_aer_table_name), settings, findings);
    const std::string nvme_table(nvme_health_columns::table);
    if (const auto nvme = telemetry.find(nvme_table); nvme != telemetry.end())
        if (const RankIdentity* leader = observations.rank(node.leader->rank))
            append(findings, nvme_health_findings(*leader, nvme->second, facts_of(nvme_table), settings));
    for (const Event& event : events) {
        const auto xid = xid_of(event);
        if (!xid) continue;
        const HealthGpu gpu = gpu_of(observations, node, xid->table, facts_of(xid->table));
        Judge judge(gpu, settings, findings);
        const auto entry = xid_entry(xid->xid);
        const std::string rule = "xid";
        if (entry)
            judge.add(entry->level, rule, "xid", std::nullopt, xid->xid,
                      fmt::format("Xid {} ({}) at {}: {}", xid->xid, entry->meaning, clock_time(event.t), entry->action));
        else
            judge.add(Level::warn, rule, "xid", std::nullopt, xid->xid,
                      fmt::format("Xid {} at {}: not in shakedown's Xid table; look it up in NVIDIA's Xid catalogue",
                                  xid->xid, clock_time(event.t)));
    }
    return findings;
}

}  // namespace shakedown::analysis
