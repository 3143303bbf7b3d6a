#include "analysis/report/report_view.hpp"

#include "analysis/export/tidy_rows.hpp"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <utility>
#include <vector>

namespace shakedown::analysis {
namespace {

using json = nlohmann::json;

json level_of(std::string_view level) { return {{"level", level}, {"verdict", upper(level)}}; }

json verdict_rows(const ReportModel& model) {
    json rows = json::array();
    for (const NodeReport& node : model.nodes) {
        const NodeVerdict& verdict = *node.verdict;
        json row = level_of(to_string(verdict.verdict));
        row.update({{"node", verdict.node},
                    {"ranks", node.ranks},
                    {"passed", std::to_string(verdict.tests.passed)},
                    {"warned", std::to_string(verdict.tests.warned)},
                    {"failed", std::to_string(verdict.tests.failed)},
                    {"errored", std::to_string(verdict.tests.errored)},
                    {"waived", std::to_string(verdict.tests.waived)},
                    {"worst", node.worst},
                    {"devices", json::array()}});
        if (verdict.verdict != Verdict::pass)  // a node that is not a PASS shows each of its GPUs
            for (const DeviceRow& device : node.devices) {
                json entry = level_of(to_string(device.verdict));
                entry.update({{"gpu", std::to_string(device.gpu)}, {"rank", std::to_string(device.rank)}, {"worst", device.worst}});
                row["devices"].push_back(std::move(entry));
            }
        rows.push_back(std::move(row));
    }
    return rows;
}

// The verdict rows of slow links: false without one (the table is left out).
json link_verdict_rows(const ReportModel& model) {
    json rows = json::array();
    for (const LinkRow& link : model.links) {
        json row = level_of(to_string(link.verdict));
        row.update({{"matrix", link.matrix},
                    {"link", link.link},
                    {"gbs", fmt::format("{:.3g}", link.gbs)},
                    {"ratio", fmt::format("{:.2f}", link.ratio)},
                    {"confirmation", std::string(to_string(link.confirmation))},
                    {"reason", link.reason}});
        rows.push_back(std::move(row));
    }
    return rows.empty() ? json(false) : json{{"rows", std::move(rows)}};
}

json gpu_rows(const ReportModel& model) {
    json rows = json::array();
    for (const NodeReport& node : model.nodes)
        for (const DeviceRow& device : node.devices) {
            json row = level_of(to_string(device.verdict));
            row.update({{"node", node.verdict->node},
                        {"gpu", std::to_string(device.gpu)},
                        {"rank", std::to_string(device.rank)},
                        {"uuid", device.gpu_uuid.empty() ? std::string(not_recorded) : device.gpu_uuid},
                        {"worst", device.worst}});
            rows.push_back(std::move(row));
        }
    return rows.empty() ? json(false) : json{{"rows", std::move(rows)}};
}

json identity_rows(const std::vector<IdentityRow>& identity) {
    json rows = json::array();
    for (const IdentityRow& row : identity)
        rows.push_back({{"node", row.node},
                        {"cpu_model", row.cpu_model},
                        {"gpu", row.gpu},
                        {"gpu_model", row.gpu_model},
                        {"gpu_uuid", row.gpu_uuid},
                        {"gpu_serial", row.gpu_serial},
                        {"driver", row.driver},
                        {"vbios", row.vbios},
                        {"nic_firmware", row.nic_firmware}});
    return rows;
}

// Every measured value, from the tidy rows `export` writes (never derived again here), grouped by
// node in the model's node order; a node with a WARN or FAIL value is open.
json results(const ReportModel& model, std::size_t max_rows) {
    if (model.observations->metrics().empty()) return false;
    std::map<std::string, std::size_t, std::less<>> slot;
    // Counted here, not in the JSON: a lookup by key per value was most of this view's time.
    std::vector<int> value_counts;
    std::vector<int> flagged_counts;
    json nodes = json::array();
    for (const NodeReport& node : model.nodes) {
        slot[node.verdict->node] = nodes.size();
        json entry = level_of(to_string(node.verdict->verdict));
        entry.update({{"node", node.verdict->node}, {"rows", json::array()}});
        nodes.push_back(std::move(entry));
    }
    value_counts.assign(nodes.size(), 0);
    flagged_counts.assign(nodes.size(), 0);
    std::size_t shown = 0;
    const std::pair<const std::string, std::size_t>* current = nullptr;  // rows come node by node
    std::size_t total = 0;
    for_each_tidy_row(*model.observations, model.result->judgement, model.result->judged, [&](const TidyRow& row) {
        ++total;
        if (current == nullptr || current->first != row.node) {
            auto found = slot.find(row.node);
            if (found == slot.end()) {  // a rank no verdict row names: never dropped silently
                found = slot.emplace(row.node, nodes.size()).first;
                json entry = level_of("incomplete");
                entry.update({{"node", row.node}, {"rows", json::array()}});
                nodes.push_back(std::move(entry));
                value_counts.push_back(0);
                flagged_counts.push_back(0);
            }
            current = &*found;
        }
        const std::size_t index = current->second;
        ++value_counts[index];
        if (row.level != Level::pass) ++flagged_counts[index];
        if (shown >= max_rows) return;
        ++shown;
        const RankIdentity* who = model.observations->rank(row.rank);
        const bool has_ratio = row.nominal && *row.nominal > 0.0;
        // "not judged" where no rule compared the figure: a PASS there would claim a check never made.
        json cells = row.judged ? level_of(to_string(row.level)) : json{{"level", "not_judged"}, {"verdict", "not judged"}};
        cells.update({{"node", row.node},
                      {"rank", std::to_string(row.rank)},
                      {"gpu", who != nullptr && who->gpu ? std::to_string(*who->gpu) : std::string("-")},
                      {"test", row.test},
                      {"metric", row.metric},
                      {"unit", row.unit},
                      {"value", format_number(row.value)},
                      {"nominal", row.nominal ? format_number(*row.nominal) : std::string("-")},
                      {"ratio", has_ratio ? fmt::format("{:.3f}", row.value / *row.nominal) : std::string("-")},
                      {"bound", row.bound ? format_number(*row.bound) : std::string("-")}});
        nodes[index]["rows"].push_back(std::move(cells));
    });
    for (std::size_t index = 0; index < nodes.size(); ++index) {
        json& node = nodes[index];
        node["values"] = std::to_string(value_counts[index]);
        node["flagged"] = std::to_string(flagged_counts[index]);
        node["open"] = flagged_counts[index] > 0;
    }
    json note = false;
    if (shown < total)
        note = fmt::format("{} of {} measured values shown; all of them: shakedown-analyze export RUN --format csv",
                           shown, total);
    return {{"nodes", std::move(nodes)}, {"note", std::move(note)}};
}

json fp64_view(const ReportModel& model) {
    if (model.fp64_table.rows.empty() && model.fp64_lines.empty()) return false;
    json rows = json::array();
    for (const auto& row : model.fp64_table.rows) {
        json cells = json::array();
        for (std::size_t i = 0; i < row.size(); ++i) cells.push_back({{"text", row[i]}, {"num", i >= 2}});
        rows.push_back({{"cells", std::move(cells)}});
    }
    return {{"header", model.fp64_table.header}, {"rows", std::move(rows)}, {"has_table", !model.fp64_table.rows.empty()},
            {"lines", model.fp64_lines}};
}

json table_view(const WorkloadTable& table) {
    json rows = json::array();
    for (const auto& row : table.rows) {
        json cells = json::array();
        for (std::size_t i = 0; i < row.size(); ++i) cells.push_back({{"text", row[i]}, {"num", i >= 1}});
        rows.push_back({{"cells", std::move(cells)}});
    }
    return {{"header", table.header}, {"rows", std::move(rows)}};
}

// A table with no row is no table (false: the template leaves it out).
json table_or_nothing(const WorkloadTable& table) { return table.rows.empty() ? json(false) : table_view(table); }

json energy_view(const ReportModel& model) {
    if (model.energy.empty()) return false;
    return {{"table", table_or_nothing(model.energy_table)}, {"lines", model.energy_lines}};
}

json workload_view(const ReportModel& model) {
    if (model.workload.empty()) return false;
    return {{"devices", table_or_nothing(model.workload_devices)},
            {"scaling", table_view(model.workload_scaling)},
            {"has_scaling", model.workload_scaling.rows.size() > 1},
            {"science", table_or_nothing(model.workload_science)},
            {"lines", model.workload_lines}};
}

}  // namespace

json lines_section(const std::vector<std::string>& lines, std::size_t max) {
    if (lines.empty()) return false;
    json shown = json::array();
    for (std::size_t i = 0; i < lines.size() && i < max; ++i) shown.push_back(lines[i]);
    json more = lines.size() > max ? json(fmt::format("... and {} more in summary.json", lines.size() - max)) : json(false);
    return {{"lines", std::move(shown)}, {"more", std::move(more)}};
}

ReportContext make_report_context(const ReportModel& model, RunDetails& details, const ReportTemplates& templates,
                                  std::vector<ThresholdsSource> thresholds, double analyzed_utc, PaperSize paper) {
    const LoadedRun& run = *model.run;
    const json& leader = run.ranks.empty() ? json() : details.inventory(run.ranks.front().node);
    ReportContext context;
    context.header = make_report_header(run.manifest, leader, std::move(thresholds), analyzed_utc);
    context.header.configuration = run_configuration(details.rank0_configuration());
    context.header.paper = paper == PaperSize::letter ? "letter" : "A4";
    context.identity = hardware_identity(*model.observations, details);
    context.templates = &templates;
    return context;
}

json report_view(const ReportModel& model, const ReportHeader& header, const std::vector<IdentityRow>& identity,
                 const ReportViewLimits& limits) {
    const std::string overall(to_string(model.result->judgement.overall));
    json verdict = level_of(overall);
    verdict["text"] = upper(overall);
    verdict["line"] = model.verdict_line;
    const std::size_t max = limits.max_lines;
    return {{"title", model.title},
            {"verdict", verdict},
            {"overview", model.overview},
            {"analyzer_version", SHAKEDOWN_VERSION},
            {"header", header_view(header)},
            {"incomplete", lines_section(model.incomplete_lines, max)},
            {"fix", lines_section(model.fix_lines, max)},
            {"confirmation", lines_section(model.confirmation_lines, max)},
            {"hidden_faults", lines_section(model.hidden_fault_lines, 4 * max)},
            {"links", lines_section(model.localization_lines, max)},
            {"waived", lines_section(model.waiver_lines, max)},
            {"price_lines", lines_section(model.price_lines, max)},
            {"baseline", lines_section(model.baseline_lines, max)},
            {"nodes", verdict_rows(model)},
            {"link_verdicts", link_verdict_rows(model)},
            {"gpus", gpu_rows(model)},
            {"identity", identity_rows(identity)},
            {"results", results(model, limits.max_result_rows)},
            {"workload", workload_view(model)},
            {"energy", energy_view(model)},
            {"fp64", fp64_view(model)},
            {"signoff", {{"verdict", upper(overall)}, {"level", overall}, {"line", model.verdict_line}}}};
}

}  // namespace shakedown::analysis
