// What the HTML and Markdown templates read: one JSON view of the report model, the header, the
// hardware identity and the measured values, shared by both formats (each renderer adds what only
// it shows: SVG plots and the findings table for HTML, the findings list for Markdown). The keys
// are the contract with a site's own templates; docs/analyzer.md ("Report templates") lists them.
// Texts are raw here: the template engine escapes them for the output format.
//
// Sections that may be empty are an object or false, so a template writes {{#fix}}...{{/fix}}
// around the heading and iterates {{#lines}} inside:
//   title, verdict {level, text, line}, overview, analyzer_version,
//   header {run_id, run_uuid, status, started_utc, ended_utc, duration, analyzed_utc,
//           slurm {job_id, partition, nodelist, job_name, num_nodes} | false,
//           versions [{name, value}], thresholds [{label, path, sha256}],
//           configuration {sha256, text, problem (text | false)} | false, planted {faults [text]} | false,
//           paper ("A4" | "letter"), footer_css (a CSS string literal: the run and when it was analyzed)},
//   incomplete | fix | confirmation | hidden_faults | links | waived | price_lines | baseline
//           {lines [text], more (text | false)} | false,
//   nodes [{node, ranks, level, verdict, passed, warned, failed, errored, waived, worst,
//           devices [{gpu, rank, level, verdict, worst}] (only under a node that is not a PASS)}],
//   link_verdicts {rows [{matrix, link, level, verdict, gbs, ratio, confirmation, reason}]} | false,
//   gpus {rows [{node, gpu, rank, uuid, level, verdict, worst}]} | false,
//   identity [{node, cpu_model, gpu, gpu_model, gpu_uuid, gpu_serial, driver, vbios, nic_firmware}],
//   results {nodes [{node, level, verdict, values, flagged, open, rows [{node, rank, gpu, test,
//           metric, unit, value, nominal, ratio, level, level_text}]}], note (text | false)} | false,
//   workload {lines [text], devices {header, rows}, scaling {header, rows}, has_scaling} | false,
//   fp64 {header [text], rows [{cells [{text, num}]}], lines [text]} | false,
//   signoff {verdict, line}
// level: pass, warn, fail, incomplete, error (a CSS class); verdict and level_text: the same in capitals.
#pragma once

#include "analysis/report/hardware_identity.hpp"
#include "analysis/report/report_header.hpp"
#include "analysis/report/report_model.hpp"
#include "analysis/report/report_templates.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace shakedown::analysis {

// What the templated reports need beyond the model: the header, the hardware identity and the
// templates, gathered once for both formats.
struct ReportContext {
    ReportHeader header;
    std::vector<IdentityRow> identity;
    const ReportTemplates* templates = nullptr;
};

// Reads every node's inventory (through `details`, which keeps it for the HTML timelines) and
// rank 0's configuration.
ReportContext make_report_context(const ReportModel& model, RunDetails& details, const ReportTemplates& templates,
                                  std::vector<ThresholdsSource> thresholds, double analyzed_utc, PaperSize paper);

struct ReportViewLimits {
    std::size_t max_lines = 50;           // per list section (hidden faults: 4x)
    std::size_t max_result_rows = 20000;  // measured values shown; the rest: `export --format csv`
};

nlohmann::json report_view(const ReportModel& model, const ReportHeader& header, const std::vector<IdentityRow>& identity,
                           const ReportViewLimits& limits = {});

// {lines, more} of at most `max` lines, or false without any.
nlohmann::json lines_section(const std::vector<std::string>& lines, std::size_t max);

}  // namespace shakedown::analysis
