// The protocol parts of the report: the header (run, dates, Slurm, versions,
// thresholds and their sha256), the per-node hardware identity, the templates and their refusals.
#include "analysis/load/observations.hpp"
#include "analysis/load/run_details.hpp"
#include "analysis/load/run_loader.hpp"
#include "analysis/report/hardware_identity.hpp"
#include "analysis/report/markup.hpp"
#include "analysis/report/report_header.hpp"
#include "analysis/report/report_templates.hpp"
#include "analysis/rules/settings/default_thresholds.hpp"
#include "analysis_fixtures.hpp"
#include "analysis_outcome.hpp"
#include "core/errors.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace shakedown::analysis {
namespace {

using testing::TempDir;

void write_text(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path);
    out << text;
}

TEST(ReportHeader, Sha256IsTheStandardDigest) {
    EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(ReportHeader, ThresholdsSourcesNameTheBuiltInTextAndTheFileWithTheirDigests) {
    TempDir temp;
    const auto built_in = thresholds_sources(std::nullopt);
    ASSERT_EQ(built_in.size(), 2u);
    EXPECT_EQ(built_in[0].path, "built-in");
    EXPECT_EQ(built_in[0].sha256, sha256_hex(default_thresholds_yaml()));
    write_text(temp.path() / "site.yaml", "metrics: {}\n");
    const auto with_file = thresholds_sources(temp.path() / "site.yaml");
    ASSERT_EQ(with_file.size(), 3u);
    EXPECT_EQ(with_file[2].path, (temp.path() / "site.yaml").string());
    EXPECT_EQ(with_file[2].sha256, sha256_hex("metrics: {}\n"));
    EXPECT_THROW(thresholds_sources(temp.path() / "absent.yaml"), InputError);
}

TEST(ReportHeader, DatesSlurmAndVersionsFromRunJsonAndTheInventory) {
    RunManifest manifest;
    manifest.run_id = "acceptance-1";
    manifest.shakedown_version = "0.0.9";
    manifest.start_utc = 1764480000.0;  // 2025-11-30T05:20:00Z
    manifest.end_utc = 1764480000.0 + 3725.0;
    manifest.status = "complete";
    manifest.versions = {{"mpi", "Open MPI 4.1.6"}, {"shakedown", "0.0.9"}};
    manifest.slurm = {{"job_id", "4242"}, {"partition", "gpu"}, {"nodelist", "node[01-08]"}, {"job_name", nullptr}};
    const nlohmann::json inventory = {{"versions", {{"mpi", "other"}, {"nccl", "2.28.3"}}},
                                      {"nvml", {{"driver_version", "580.95.05"}}}};
    const ReportHeader header = make_report_header(manifest, inventory, thresholds_sources(std::nullopt), 1764490000.0);
    EXPECT_EQ(header.started_utc, "2025-11-30T05:20:00.000Z");
    EXPECT_EQ(header.ended_utc, "2025-11-30T06:22:05.000Z");
    EXPECT_EQ(header.duration, "01:02:05 (3725 s)");
    ASSERT_TRUE(header.slurm);
    EXPECT_EQ(header.slurm->job_id, "4242");
    EXPECT_EQ(header.slurm->partition, "gpu");
    EXPECT_EQ(header.slurm->nodelist, "node[01-08]");
    EXPECT_EQ(header.slurm->job_name, not_recorded);
    EXPECT_EQ(header.slurm->num_nodes, not_recorded);
    std::map<std::string, std::string> versions(header.versions.begin(), header.versions.end());
    EXPECT_EQ(versions["shakedown (the run)"], "0.0.9");
    EXPECT_EQ(versions["mpi"], "Open MPI 4.1.6");  // run.json first
    EXPECT_EQ(versions["nccl"], "2.28.3");          // what only the inventory holds
    EXPECT_EQ(versions["nvidia_driver"], "580.95.05");
    EXPECT_EQ(versions.count("shakedown"), 0u);
    const nlohmann::json view = header_view(header);
    EXPECT_EQ(view["slurm"]["job_id"], "4242");
}

TEST(ReportHeader, ARunWithoutEndOrSlurmSaysNotRecorded) {
    RunManifest manifest;
    manifest.run_id = "running";
    manifest.start_utc = 1764480000.0;
    const ReportHeader header = make_report_header(manifest, nullptr, {}, 1764490000.0);
    EXPECT_EQ(header.ended_utc, not_recorded);
    EXPECT_EQ(header.duration, not_recorded);
    EXPECT_FALSE(header.slurm);
    EXPECT_EQ(header_view(header)["slurm"], false);
}

TEST(HardwareIdentity, EveryGpuOfANodeWithWhatItsInventoryRecordedAndNotRecordedElsewhere) {
    TempDir temp;
    std::vector<Trace> traces = testing::healthy_traces(3, 1);
    traces[0].inventory = {
        {"cpu", {{"model", "AMD EPYC 9654"}}},
        {"nvml", {{"loaded", true},
                  {"driver_version", "580.95.05"},
                  {"devices", {{{"nvml_index", 0}, {"name", "NVIDIA H200"}, {"uuid", "GPU-aaaa"}, {"serial", "1650924060001"},
                                {"vbios_version", "96.00.74.00.01"}},
                               {{"nvml_index", 1}, {"name", "NVIDIA H200"}, {"uuid", "GPU-bbbb"}}}}}},
        {"rdma", {{{"name", "mlx5_0"}, {"fw_ver", "28.39.1002"}}, {{"name", "mlx5_1"}, {"fw_ver", "28.39.1002"}}}}};
    // NVML not loaded: the runtime's GPU list
    traces[1].inventory = {{"cpu", {{"model", "Intel Xeon"}}}, {"gpus", {{{"index", 0}, {"name", "NVIDIA A100"}, {"uuid", "GPU-cccc"}}}}};
    traces[2].inventory = {{"cpu", {{"model", ""}}}};  // a host node; an empty model is no model
    const LoadedRun run = load_run(testing::write_run(temp.path() / "run", traces));
    const Observations observations(run);
    RunDetails details(run);
    const std::vector<IdentityRow> rows = hardware_identity(observations, details);
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[0].node, "node0000");
    EXPECT_EQ(rows[0].cpu_model, "AMD EPYC 9654");
    EXPECT_EQ(rows[0].gpu, "0");
    EXPECT_EQ(rows[0].gpu_uuid, "GPU-aaaa");
    EXPECT_EQ(rows[0].gpu_serial, "1650924060001");
    EXPECT_EQ(rows[0].vbios, "96.00.74.00.01");
    EXPECT_EQ(rows[0].driver, "580.95.05");
    EXPECT_EQ(rows[0].nic_firmware, "mlx5_0 28.39.1002, mlx5_1 28.39.1002");
    EXPECT_EQ(rows[1].gpu_uuid, "GPU-bbbb");
    EXPECT_EQ(rows[1].gpu_serial, not_recorded);
    EXPECT_EQ(rows[1].vbios, not_recorded);
    EXPECT_EQ(rows[2].gpu_model, "NVIDIA A100");
    EXPECT_EQ(rows[2].driver, not_recorded);
    EXPECT_EQ(rows[2].nic_firmware, not_recorded);
    EXPECT_EQ(rows[3].node, "node0002");
    EXPECT_EQ(rows[3].cpu_model, not_recorded);
    EXPECT_EQ(rows[3].gpu, "none");
    for (const IdentityRow& row : rows)
        for (const std::string* cell : {&row.cpu_model, &row.gpu, &row.gpu_model, &row.gpu_uuid, &row.gpu_serial, &row.driver,
                                        &row.vbios, &row.nic_firmware})
            EXPECT_FALSE(cell->empty()) << row.node;
}

TEST(ReportTemplates, RenderEscapesDoubleBracesOnly) {
    const nlohmann::json view = {{"name", "<b>"}, {"svg", "<svg/>"}, {"rows", {{{"x", "1"}}, {{"x", "2"}}}}, {"off", false}};
    const std::string out = render_template("t", "{{name}} {{{svg}}} {{#rows}}[{{x}}]{{/rows}}{{#off}}no{{/off}}", view,
                                            [](const std::string& text) { return "(" + text + ")"; });
    EXPECT_EQ(out, "(<b>) <svg/> [(1)][(2)]");
    EXPECT_THROW(render_template("t", "{{#rows}}unclosed", view, [](const std::string& text) { return text; }), InputError);
}

TEST(ReportTemplates, BuiltInTemplatesParseAndATemplateFolderMustHoldBoth) {
    TempDir temp;
    const ReportTemplates built_in = ReportTemplates::built_in();
    EXPECT_EQ(built_in.html.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_NE(built_in.markdown.find("### Sign-off"), std::string::npos);
    EXPECT_THROW(ReportTemplates::from_dir(temp.path() / "absent"), InputError);
    write_text(temp.path() / html_template_file, "<html>{{title}}</html>");
    try {
        ReportTemplates::from_dir(temp.path());
        ADD_FAILURE() << "a folder without report.md.mustache was accepted";
    } catch (const InputError& error) {
        EXPECT_NE(std::string(error.what()).find("report.md.mustache"), std::string::npos) << error.what();
    }
    write_text(temp.path() / markdown_template_file, "{{#title}}unclosed");
    EXPECT_THROW(ReportTemplates::from_dir(temp.path()), InputError);
    write_text(temp.path() / markdown_template_file, "# {{title}}");
    const ReportTemplates site = ReportTemplates::from_dir(temp.path());
    EXPECT_EQ(site.html, "<html>{{title}}</html>");
    EXPECT_EQ(site.origin, temp.path().string());
}

// A planted corruption read as a real data-corruption FAIL: the report now opens with a banner
// listing the run's planted faults (from the configuration rank 0 recorded), shows that
// configuration's sha256 in the header and its text as an appendix, and prints on the page size
// asked for with a footer naming the run on every page. A run without faults has no banner.
TEST(ReportDocument, PlantedFaultsConfigurationPaperAndFooterAreShown) {
    TempDir temp;
    auto traces = testing::healthy_traces(2, 1);
    const std::string configuration =
        "suite: quick\nfaults:\n  - {kind: corrupt, test: stream, rank: 1, seconds: 0}\n  - {kind: delay, test: "
        "allpairs, rank: 0, seconds: 0.5}\n";
    traces[0].config_yaml = configuration;
    const auto run = testing::write_run(temp.path() / "run", traces);
    const auto html_of = [&](PaperSize paper) {
        const auto outcome = testing::analyze_in_process({.run_dir = run, .paper = paper});
        EXPECT_EQ(outcome.exit_code, 0) << outcome.err;
        return testing::read_text(run / "report.html");
    };
    const std::string html = html_of(PaperSize::a4);
    EXPECT_NE(html.find("Faults were planted in this run on purpose"), std::string::npos);
    EXPECT_NE(html.find("<li>corrupt on stream at rank 1</li><li>delay on allpairs at rank 0, 0.5 s</li>"),
              std::string::npos);
    EXPECT_LT(html.find("id=\"planted\""), html.find("<h2>Run</h2>")) << "the banner comes first";
    EXPECT_NE(html.find("sha256 <span class=\"hash\">" + sha256_hex(configuration) + "</span>"), std::string::npos);
    EXPECT_NE(html.find("<h2>Appendix: configuration</h2>"), std::string::npos);
    EXPECT_LT(html.find("id=\"signoff\""), html.find("<h2>Appendix: measured values</h2>")) << "values after sign-off";
    EXPECT_NE(html.find("size: A4;"), std::string::npos);
    EXPECT_NE(html.find(std::string("@bottom-left { content: \"shakedown run ") + testing::test_run_id + ", analyzed "),
              std::string::npos);
    EXPECT_NE(html.find("counter(page) \" of \" counter(pages)"), std::string::npos);
    EXPECT_NE(html_of(PaperSize::letter).find("size: letter;"), std::string::npos);
    const auto markdown = testing::analyze_in_process({.run_dir = run, .format = ReportFormat::markdown});
    EXPECT_NE(markdown.out.find("**Faults were planted in this run on purpose**"), std::string::npos) << markdown.out;
    EXPECT_NE(markdown.out.find("sha256 " + sha256_hex(configuration)), std::string::npos) << markdown.out;

    TempDir healthy_temp;
    const auto healthy = testing::write_run(healthy_temp.path() / "run", testing::healthy_traces(2, 1));
    EXPECT_EQ(testing::analyze_in_process({.run_dir = healthy}).exit_code, 0);
    const std::string plain = testing::read_text(healthy / "report.html");
    EXPECT_EQ(plain.find("Faults were planted"), std::string::npos);
    EXPECT_NE(plain.find("resolved, as rank 0 recorded it"), std::string::npos);
}

// A footer text is a CSS string: quotes, backslashes and markup cannot end it or the style sheet.
TEST(ReportDocument, AFooterTextCannotLeaveItsCssString) {
    EXPECT_EQ(css_string_literal("run \"a\\b\" </style><b>"), "\"run \\\"a\\\\b\\\" \\3c /style\\3e \\3c b\\3e \"");
}

// 100,000 nested sections ran the analyzer out of memory inside the template library: the depth
// is counted first, through changed delimiters too; the built-in templates and 64 levels pass.
TEST(ReportTemplates, SectionsNestedTooDeepAreRefusedBeforeTheyAreParsed) {
    TempDir temp;
    write_text(temp.path() / html_template_file, "<html>{{title}}</html>");
    const auto nested = [](const std::string& open, const std::string& close, int depth) {
        std::string text;
        for (int level = 0; level < depth; ++level) text += open + "#s" + close;
        for (int level = 0; level < depth; ++level) text += open + "/s" + close;
        return text;
    };
    write_text(temp.path() / markdown_template_file, nested("{{", "}}", 64));
    EXPECT_NO_THROW(ReportTemplates::from_dir(temp.path()));
    const std::vector<std::pair<std::string, std::string>> deep = {
        {nested("{{", "}}", 100000), "sections nested 100000 deep; at most 64"},
        {"{{=<% %>=}}" + nested("<%", "%>", 65), "sections nested 65 deep; at most 64"},
        {"{{^a}}" + nested("{{ ", " }}", 64) + "{{/a}}", "sections nested 65 deep; at most 64"},
    };
    for (const auto& [text, message] : deep) {
        write_text(temp.path() / markdown_template_file, text);
        try {
            ReportTemplates::from_dir(temp.path());
            ADD_FAILURE() << "accepted: " << message;
        } catch (const InputError& error) {
            EXPECT_NE(std::string(error.what()).find(message), std::string::npos) << error.what();
        }
    }
}

TEST(ReportTemplates, ABadTemplateFolderIsBadInputAndWritesNothing) {
    TempDir temp;
    const auto run = testing::write_run(temp.path() / "run", testing::healthy_traces(2, 1));
    const auto outcome = testing::analyze_in_process({.run_dir = run, .template_dir = temp.path() / "no-such-folder"});
    EXPECT_EQ(outcome.exit_code, 2);
    EXPECT_NE(outcome.err.find("--template-dir"), std::string::npos) << outcome.err;
    EXPECT_EQ(std::count(outcome.err.begin(), outcome.err.end(), '\n'), 1) << outcome.err;
    EXPECT_FALSE(std::filesystem::exists(run / "report.html"));
    EXPECT_FALSE(std::filesystem::exists(run / "summary.json"));
}

TEST(ReportTemplates, ASiteTemplateBrandsTheReportAndTheBuiltInOneIsTheDefault) {
    TempDir temp;
    const auto run = testing::write_run(temp.path() / "run", testing::healthy_traces(2, 1));
    const auto site = temp.path() / "site";
    std::filesystem::create_directories(site);
    write_text(site / html_template_file, "<!DOCTYPE html><html><body><p>ACME acceptance {{#header}}{{run_id}}{{/header}}: "
                                          "{{#verdict}}{{text}}{{/verdict}}</p></body></html>");
    write_text(site / markdown_template_file, "ACME {{title}}\n");
    const auto branded = testing::analyze_in_process({.run_dir = run, .template_dir = site, .format = ReportFormat::markdown});
    EXPECT_EQ(branded.exit_code, 0) << branded.err;
    EXPECT_EQ(branded.out.rfind(std::string("ACME shakedown run ") + testing::test_run_id + "\n", 0), 0u) << branded.out;
    EXPECT_EQ(testing::read_text(run / "report.html"),
              std::string("<!DOCTYPE html><html><body><p>ACME acceptance ") + testing::test_run_id + ": PASS</p></body></html>");
    const auto plain = testing::analyze_in_process({.run_dir = run});
    EXPECT_EQ(plain.exit_code, 0) << plain.err;
    const std::string html = testing::read_text(run / "report.html");
    for (const char* needed : {"Hardware identity", "Appendix: measured values", "Accepted by", "Signature", "sha256"})
        EXPECT_NE(html.find(needed), std::string::npos) << needed;
}

}  // namespace
}  // namespace shakedown::analysis
