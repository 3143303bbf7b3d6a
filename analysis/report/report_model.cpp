#include "analysis/report/report_model.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <tuple>

namespace shakedown::analysis {
namespace {

// Localization names the culprit, telemetry explains; the rest follow as judged.
int priority(const Finding& finding) {
    if (finding.source == FindingSource::links || finding.source == FindingSource::collective) return 0;
    if (finding.telemetry_coincided) return 1;
    return 2;
}

// Confirm before drain: in a first analysis what to measure again and how; after a confirmation
// run what it confirmed, did not reproduce and did not measure.
std::vector<std::string> confirmation_lines(const AnalysisResult& result, const LoadedRun& run) {
    std::vector<std::string> lines;
    const ConfirmationPlan& plan = result.confirmation;
    if (!result.confirmation_run.empty()) {
        int confirmed = 0;
        int not_reproduced = 0;
        for (const NodeVerdict& node : result.judgement.nodes)
            for (const Finding& finding : node.findings) {
                confirmed += finding.confirmation == Confirmation::confirmed ? 1 : 0;
                not_reproduced += finding.confirmation == Confirmation::not_reproduced ? 1 : 0;
            }
        lines.push_back(fmt::format("confirmation run {}: {} FAIL(s) measured again and confirmed (they drain), {} not "
                                    "reproduced (WARN), {} not measured again (FAIL, not drained)",
                                    result.confirmation_run, confirmed, not_reproduced, plan.awaiting));
    } else if (!plan.empty()) {
        lines.push_back(fmt::format("{} FAIL(s) rest on one measurement of a figure and drain nothing until a "
                                    "confirmation run measures them again",
                                    plan.awaiting));
    }
    if (plan.empty()) return lines;
    const std::string name = run.dir.filename().string();
    lines.push_back(fmt::format("measure again: tests {} on nodes {}, with this run's options and ranks per node: "
                                "`shakedown run --tests {} --name {}-confirm ...` launched on those nodes only",
                                fmt::join(plan.tests, ","), fmt::join(plan.nodes, ","), fmt::join(plan.tests, ","), name));
    lines.push_back(fmt::format("then judge both: shakedown-analyze {} --confirmation {}-confirm", run.dir.string(),
                                (run.dir.parent_path() / name).string()));
    return lines;
}

// Hidden faults: every health counter rise, state and Xid event a rule judged, per node and GPU,
// with the rule (in the reason), so an engineer sees all of them in one place and not only the
// node's worst line.
std::vector<std::string> hidden_fault_lines(const Judgement& judgement) {
    std::vector<std::string> lines;
    for (const NodeVerdict& node : judgement.nodes)
        for (const Finding& finding : node.findings)
            if (finding.source == FindingSource::hidden_faults)
                lines.push_back(fmt::format("{} {}: {}", node.node, upper(to_string(finding.level)), finding.reason));
    return lines;
}

// One link matrix's localization: its figures, then what it found.
void add_localization_lines(std::vector<std::string>& lines, const LinkLocalization& links) {
    if (!links.analyzed) {
        lines.push_back(links.matrix + ": not localized: " + links.note);
        return;
    }
    const LinkBands& bands = links.bands;
    lines.push_back(fmt::format(
        "{}: {} nodes, {} node pairs, {} samples per link, measurement noise {:.1f} % per sample; healthy link "
        "level {} GB/s; links warn below {:.2f}, fail below {:.2f} of their reference (nodes {:.2f} / {:.2f}), and "
        "only beyond {:.1f} noise sigmas (nodes {:.1f}){}{}",
        links.matrix, links.nodes.size(), links.links.size(), links.noise.typical_samples, 100.0 * links.noise.measured_sigma,
        format_number(links.healthy_gbs), bands.link_warn, bands.link_fail, bands.node_warn, bands.node_fail,
        links.link_sigmas, links.node_sigmas,
        links.low_mode_links > 0 ? fmt::format("; {} link(s) below {} GB/s, a low mode, are in no reference",
                                               links.low_mode_links, format_number(links.reference_floor_gbs))
                                 : std::string(),
        links.note.empty() ? "" : " (" + links.note + ")"));
    auto level = [](Level l) { return l == Level::fail ? "FAIL" : "WARN"; };
    for (const SlowNode& node : links.slow_nodes)
        lines.push_back(fmt::format("slow node {} ({}): {} of {} links, {:.2f} of their references "
                                    "(median {} GB/s vs {} GB/s for the links not touching it)",
                                    node.node, node.level == Level::fail ? "FAIL: drained once confirmed" : "WARN: not drained",
                                    node.all_links ? fmt::format("all {}", node.links)
                                                   : fmt::format("common end of {}", node.evidence.size()),
                                    node.links, node.ratio, format_number(node.median_gbs),
                                    format_number(node.others_median_gbs)));
    for (const SlowLink& link : links.slow_links)
        lines.push_back(fmt::format("slow link {} ({}, the link, not its nodes: not drained): {} GB/s, {:.2f} of "
                                    "its reference {} GB/s",
                                    link.link.name(), level(link.level), format_number(link.link.bandwidth_gbs),
                                    link.link.ratio, format_number(link.healthy_gbs)));
    for (const SlowGroup& group : links.slow_groups)
        lines.push_back(fmt::format("slow {} ({}): {} cross links median {} GB/s, {:.2f} of their references, vs {} GB/s "
                                    "elsewhere",
                                    group_name(group), level(group.level), group.cross_links,
                                    format_number(group.cross_median_gbs), group.ratio,
                                    format_number(group.inside_median_gbs)));
    if (links.slow_nodes.empty() && links.slow_links.empty() && links.slow_groups.empty())
        lines.push_back("no slow node, link or group");
}

std::vector<std::string> localization_lines(const AnalysisResult& result) {
    std::vector<std::string> lines;
    for (const LinkLocalization* links : result.all_links()) add_localization_lines(lines, *links);
    return lines;
}

// Waivers repeat on every rank ("no CUDA device" x 1024): one line per test and reason.
std::vector<std::string> waiver_lines(const Judgement& judgement) {
    std::map<std::tuple<std::string, std::string>, std::vector<int>> ranks_by_waiver;
    for (const NodeVerdict& node : judgement.nodes)
        for (const WaivedTest& waived : node.waived) ranks_by_waiver[{waived.test, waived.reason}].push_back(waived.rank);
    std::vector<std::string> lines;
    for (auto& [key, ranks] : ranks_by_waiver) {
        std::sort(ranks.begin(), ranks.end());
        lines.push_back(fmt::format("{}: {} (ranks {})", std::get<0>(key), std::get<1>(key), compact_rank_list(ranks)));
    }
    return lines;
}

std::vector<std::string> price_lines(const PriceReport& price) {
    std::vector<std::string> lines;
    lines.push_back(fmt::format("node price {} per hour ({} per month)", money(price.node_hour_price, price.currency),
                                money(price.node_hour_price * hours_per_month, price.currency)));
    for (const PriceLine& line : price.fleet) {
        if (!line.usable) {
            lines.push_back(fmt::format("fleet: {}: not measured ({})", line.quantity, line.metric));
            continue;
        }
        std::string text = fmt::format("fleet: {} per usable {} per hour ({} usable", money(*line.per_usable_hour, price.currency),
                                       line.quantity, format_number(*line.usable));
        if (line.per_nominal_hour)
            text += fmt::format(" of {} nominal; {} per nominal {} per hour", format_number(*line.nominal),
                                money(*line.per_nominal_hour, price.currency), line.quantity);
        lines.push_back(text + ")");
    }
    return lines;
}

// "not run: nccl, gemm_ladder (no CUDA device); h2d_bandwidth (...)": a passing node's waivers in
// its verdict row, so a PASS never hides what did not run.
std::string not_run_text(const NodeVerdict& node) {
    std::vector<std::pair<std::string, std::vector<std::string>>> by_reason;  // in order of appearance
    for (const WaivedTest& waived : node.waived) {
        auto entry = std::find_if(by_reason.begin(), by_reason.end(), [&](const auto& e) { return e.first == waived.reason; });
        if (entry == by_reason.end()) entry = by_reason.insert(by_reason.end(), {waived.reason, {}});
        if (std::find(entry->second.begin(), entry->second.end(), waived.test) == entry->second.end())
            entry->second.push_back(waived.test);
    }
    std::string text = "not run: ";
    for (std::size_t i = 0; i < by_reason.size(); ++i)
        text += fmt::format("{}{} ({})", i == 0 ? "" : "; ", fmt::join(by_reason[i].second, ", "), by_reason[i].first);
    return text;
}

std::vector<DeviceRow> device_rows(const Observations& observations, const NodeVerdict& node) {
    std::vector<DeviceRow> rows;
    for (const int rank : node.ranks) {
        const RankIdentity* who = observations.rank(rank);
        if (who == nullptr || !who->gpu) continue;
        DeviceRow row{rank, *who->gpu, who->gpu_uuid, Verdict::pass, "-"};
        const Finding* worst = nullptr;
        for (const Finding& finding : node.findings)
            // Only what the GPU measured: a finding filed under the host or a link has no GPU.
            if (finding.rank == rank && finding.gpu && finding.cause == Cause::hardware &&
                (worst == nullptr || finding.level > worst->level))
                worst = &finding;
        if (worst != nullptr) {
            row.verdict = worst->level == Level::fail ? Verdict::fail : Verdict::warn;
            row.worst = worst->reason;
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

// A row per slow link of every matrix, with the level its findings ended at (a confirmation that
// did not reproduce it made them a WARN).
std::vector<LinkRow> link_rows(const AnalysisResult& result, const std::vector<NodeReport>& nodes) {
    std::vector<LinkRow> rows;
    for (const LinkLocalization* localization : result.all_links())
        for (const SlowLink& slow : localization->slow_links) {
            const Finding* found = nullptr;
            for (const NodeReport& node : nodes) {
                if (node.verdict->node != slow.link.a) continue;
                for (const Finding* finding : node.findings)
                    if (found == nullptr && is_link_fault(*finding) && finding->link_matrix == localization->matrix &&
                        !finding->peers.empty() && finding->peers.front() == slow.link.b)
                        found = finding;
            }
            if (found == nullptr) continue;  // no finding stands for it: nothing to show
            rows.push_back({.matrix = localization->network.empty() ? localization->test
                                                                    : localization->test + " " + localization->network,
                            .link = slow.link.name(),
                            .verdict = found->level == Level::fail ? Verdict::fail : Verdict::warn,
                            .gbs = slow.link.bandwidth_gbs,
                            .ratio = slow.link.ratio,
                            .confirmation = found->confirmation,
                            .reason = found->reason});
        }
    return rows;
}

// The node's tests as JUnit cases: every test a rank of the node recorded, then the findings
// about tests no rank recorded (a missing result, the port counter check).
std::vector<TestCaseRow> test_cases(const Observations& observations, const NodeReport& node) {
    std::vector<TestCaseRow> cases;
    auto case_for = [&](const std::string& test) -> TestCaseRow& {
        for (TestCaseRow& row : cases)
            if (row.test == test) return row;
        cases.push_back({test});
        return cases.back();
    };
    for (const TestRow* test_row : observations.tests_on(node.verdict->node)) {
        const TestRow& row = *test_row;
        TestCaseRow& entry = case_for(row.test->key);
        ++entry.ranks;
        entry.seconds = std::max(entry.seconds, std::max(0.0, row.test->end_utc - row.test->start_utc));
        if (row.test->status == Status::waived) {
            ++entry.waived_ranks;
            entry.waiver = row.test->reason;
        }
    }
    for (const Finding& finding : node.verdict->findings) {
        TestCaseRow& row = case_for(finding.test);
        if (finding.level != Level::fail) row.warnings.push_back(&finding);
        else (finding.cause == Cause::hardware ? row.failures : row.errors).push_back(&finding);
    }
    return cases;
}

}  // namespace

std::string upper(std::string_view text) {
    std::string result(text);
    std::transform(result.begin(), result.end(), result.begin(), [](unsigned char c) { return std::toupper(c); });
    return result;
}

std::string finding_label(const Finding& finding) {
    const std::string gpu = finding.gpu ? fmt::format(" GPU {}", *finding.gpu) : std::string();
    return fmt::format("{} rank {}{} {}", finding.node, finding.rank, gpu, finding.test);
}

std::string describe_finding(const Finding& finding) {
    const std::string awaiting =
        finding.confirmation == Confirmation::awaiting ? " (measured once: not drained until a confirmation run measures it again)" : "";
    return finding_label(finding) + ": " + finding.reason + awaiting;
}

std::string compact_rank_list(const std::vector<int>& ranks) {
    std::string text;
    for (std::size_t i = 0; i < ranks.size();) {
        std::size_t end = i;
        while (end + 1 < ranks.size() && ranks[end + 1] == ranks[end] + 1) ++end;
        if (!text.empty()) text += ',';
        text += end == i ? std::to_string(ranks[i]) : fmt::format("{}-{}", ranks[i], ranks[end]);
        i = end + 1;
    }
    return text;
}

ReportModel make_report_model(const Observations& observations, const AnalysisResult& result, const AnalysisSettings& settings) {
    const LoadedRun& run = observations.run();
    const Judgement& judgement = result.judgement;
    ReportModel model;
    model.observations = &observations;
    model.run = &run;
    model.result = &result;
    model.title = fmt::format("shakedown run {}", run.manifest.run_id);
    model.overview = fmt::format("suite {}, {} rank(s) on {} node(s), status {}",
                                 run.manifest.suite.empty() ? "-" : run.manifest.suite, run.manifest.world_size,
                                 judgement.nodes.size(), run.manifest.status);
    for (const NodeVerdict& node : judgement.nodes) {
        ++model.nodes_by_verdict[node.verdict];
        NodeReport report;
        report.verdict = &node;
        report.ranks = compact_rank_list(node.ranks);
        const Finding* worst = node.worst_finding();
        report.worst = worst != nullptr             ? worst->reason
                       : !node.incomplete.empty() ? node.incomplete.front()
                       : !node.waived.empty()     ? not_run_text(node)
                                                  : "-";
        report.worst_with_rank = worst != nullptr ? fmt::format("rank {} {}: {}", worst->rank, worst->test, worst->reason)
                                                  : report.worst;
        for (const Finding& finding : node.findings) report.findings.push_back(&finding);
        std::stable_sort(report.findings.begin(), report.findings.end(), [](const Finding* a, const Finding* b) {
            return a->level != b->level ? a->level > b->level : priority(*a) < priority(*b);
        });
        for (const Finding* finding : report.findings) {
            if (finding->level != Level::fail) model.warnings.push_back(finding);
            else if (finding->cause == Cause::hardware) model.failures.push_back(finding);
            else {
                model.to_fix.push_back(finding);
                model.fix_lines.push_back(fmt::format("{}: {}", to_string(finding->cause), describe_finding(*finding)));
            }
        }
        report.cases = test_cases(observations, report);
        report.devices = device_rows(observations, node);
        model.nodes.push_back(std::move(report));
    }
    model.links = link_rows(result, model.nodes);
    model.verdict_line = fmt::format("Verdict: {}: {} node(s): {} pass, {} warn, {} fail, {} incomplete",
                                     upper(to_string(judgement.overall)), judgement.nodes.size(),
                                     model.nodes_by_verdict[Verdict::pass], model.nodes_by_verdict[Verdict::warn],
                                     model.nodes_by_verdict[Verdict::fail], model.nodes_by_verdict[Verdict::incomplete]);
    if (!model.fix_lines.empty())
        model.verdict_line += fmt::format("; {} problem(s) to fix before the hardware can be judged (not drained)",
                                          model.fix_lines.size());
    if (judgement.is_incomplete())
        model.verdict_line += fmt::format("; run {} ({} of {} ranks judged)", run.cancelled ? "cancelled" : "incomplete",
                                          judgement.ranks_judged, judgement.ranks_expected);
    for (const std::string& error : judgement.errors) model.fix_lines.insert(model.fix_lines.begin(), error);
    model.localization_lines = localization_lines(result);
    model.hidden_fault_lines = hidden_fault_lines(judgement);
    model.confirmation_lines = confirmation_lines(result, run);
    model.waiver_lines = waiver_lines(judgement);
    model.incomplete_lines = judgement.incomplete;
    if (result.baseline)
        model.baseline_line = fmt::format("run {}: {} values compared, {} regressions beyond {:.0f} %, {} job-wide metrics "
                                          "compared once for the run ({} regressed), {} improvements, "
                                          "{} baseline values not in this run",
                                          result.baseline->baseline_run_id, result.baseline->compared,
                                          result.baseline->regressions, result.baseline->tolerance * 100,
                                          result.baseline->job_wide_compared, result.baseline->run_regressions.size(),
                                          result.baseline->improvements, result.baseline->missing);
    if (model.baseline_line) model.baseline_lines.push_back(*model.baseline_line);
    if (result.baseline)
        for (const RunRegression& regression : result.baseline->run_regressions)
            model.baseline_lines.push_back(fmt::format("{} run level: {}", upper(to_string(regression.level)), regression.reason));
    model.node_metrics = summarize_node_metrics(observations);
    model.price = make_price_report(model.node_metrics, settings);
    if (model.price) model.price_lines = price_lines(*model.price);
    model.energy = result.energy;
    model.rent_or_buy = rent_or_buy(settings.ownership, model.price, model.energy, settings.energy_per_kwh);
    if (model.rent_or_buy) {
        for (std::string& line : rent_or_buy_lines(*model.rent_or_buy)) model.price_lines.push_back(std::move(line));
    } else if (settings.ownership) {
        model.price_lines.push_back("rent against buy: not computed: no rent (price.per_node_hour, or --price-per-node-hour)");
    }
    model.fp64 = make_fp64_capability(observations, settings);
    add_fp64_task(model.fp64, model.energy, settings);
    model.fp64_table = fp64_table(model.fp64);
    model.fp64_lines = fp64_lines(model.fp64);
    model.workload = make_workload(observations, settings);
    add_task_energy(model.workload, model.energy, settings);
    model.workload_devices = workload_device_table(model.workload);
    model.workload_scaling = workload_scaling_table(model.workload);
    model.workload_science = workload_science_table(model.workload);
    model.workload_lines = workload_lines(model.workload);
    model.energy_table = energy_table(model.energy);
    model.energy_lines = energy_lines(model.energy);
    return model;
}

}  // namespace shakedown::analysis
