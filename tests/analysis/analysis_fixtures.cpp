#include "analysis_fixtures.hpp"

#include "analysis/load/observations.hpp"
#include "analysis/load/run_manifest.hpp"
#include "analysis/rules/figures/threshold_rule.hpp"
#include "bench/run_folder_writer.hpp"
#include "core/registry.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace shakedown::analysis::testing {

TempDir::TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "shakedown-analysis-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
}

TempDir::~TempDir() {
    std::error_code ignored;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ignored);
    std::filesystem::remove_all(path_, ignored);
}

Trace healthy_trace(int rank, int world_size, const std::string& node) {
    Trace trace;
    trace.header.shakedown_version = "0.1.0";
    trace.header.run_id = test_run_id;
    trace.header.rank = rank;
    trace.header.world_size = world_size;
    trace.header.node = node;
    trace.header.start_utc = 1764480000.0;
    trace.config_yaml = "suite: quick\n";
    trace.inventory = {{"cpu", {{"model", "test cpu"}}}};

    TestResult stream;
    stream.key = "stream";
    stream.start_utc = 1764480001.0;
    stream.end_utc = 1764480002.0;
    stream.metrics.push_back(Metric{"stream.triad_gbs", "GB/s", static_cast<double>(7.5), 7.9, Better::higher});
    stream.metrics.push_back(Metric{"stream.copy_gbs", "GB/s", static_cast<double>(7.1), 7.9, Better::higher});
    trace.tests.push_back(stream);

    TestResult pingpong;
    pingpong.key = "mpi_pingpong";
    pingpong.start_utc = 1764480002.0;
    pingpong.end_utc = 1764480003.0;
    pingpong.metrics.push_back(Metric{"mpi_pingpong.latency_us", "us", static_cast<double>(1.9), std::nullopt, Better::lower});
    trace.tests.push_back(pingpong);

    trace.events.push_back({1764480000.0, Severity::info, "run started"});
    trace.status = TraceStatus::complete;
    trace.end_utc = 1764480004.0;
    return trace;
}

std::vector<Trace> healthy_traces(int world_size, int ranks_per_node) {
    std::vector<Trace> traces;
    for (int rank = 0; rank < world_size; ++rank) {
        traces.push_back(healthy_trace(rank, world_size, fmt::format("node{:04d}", rank / ranks_per_node)));
        traces.back().header.local_rank = rank % ranks_per_node;
    }
    return traces;
}

TestResult& test_named(Trace& trace, const std::string& key) {
    for (TestResult& test : trace.tests)
        if (test.key == key) return test;
    throw std::out_of_range("no test " + key);
}

Metric declared_metric(std::string_view test_key, std::string_view name, double value, std::optional<double> nominal) {
    const MetricSpec* declared = Registry::instance().declaration(test_key, name);
    if (declared == nullptr) throw std::logic_error(fmt::format("{} declares no metric {}", test_key, name));
    return Metric{std::string(name), declared->unit, value, nominal, declared->better};
}

Metric& metric_named(Trace& trace, const std::string& name) {
    for (TestResult& test : trace.tests)
        for (Metric& metric : test.metrics)
            if (metric.name == name) return metric;
    throw std::out_of_range("no metric " + name);
}

Judgement judge_run(const LoadedRun& run, const Thresholds& thresholds) {
    const Observations observations(run);
    std::vector<Finding> findings = test_status_findings(observations);
    for (std::vector<Finding> more : {missing_result_findings(observations), threshold_findings(observations, thresholds)})
        findings.insert(findings.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    return judge(observations, std::move(findings));
}

LoadedRun loaded_run(const std::vector<Trace>& traces) {
    LoadedRun run;
    run.dir = "/runs/test";
    run.manifest.run_id = test_run_id;
    run.manifest.suite = "quick";
    run.manifest.tests = {"stream", "mpi_pingpong"};
    run.manifest.world_size = static_cast<int>(traces.size());
    run.manifest.status = "complete";
    for (const Trace& trace : traces) {
        const int rank = trace.header.rank;
        ManifestRank entry;
        entry.rank = rank;
        entry.node = trace.header.node;
        entry.local_rank = trace.header.local_rank;
        entry.trace_file = default_trace_file_name(rank);
        run.manifest.ranks.push_back(std::move(entry));
        if (run.manifest.nodes.empty() || run.manifest.nodes.back().name != trace.header.node)
            run.manifest.nodes.push_back({trace.header.node, static_cast<int>(run.manifest.nodes.size()), {}});
        run.manifest.nodes.back().ranks.push_back(rank);
        RankRecord record;
        record.rank = rank;
        record.node = trace.header.node;
        record.local_rank = trace.header.local_rank;
        record.trace_path = run.dir / default_trace_file_name(rank);
        record.trace = trace;
        run.ranks.push_back(std::move(record));
    }
    return run;
}

std::filesystem::path write_run(const std::filesystem::path& dir, const std::vector<Trace>& traces,
                                const std::string& status, const std::vector<std::string>& tests) {
    std::filesystem::create_directories(dir);
    std::vector<std::string> node_of_rank;
    for (const Trace& trace : traces) {
        node_of_rank.push_back(trace.header.node);
        bench::write_trace_file(dir / default_trace_file_name(trace.header.rank), trace);
    }
    bench::write_run_json(dir, bench::make_run_json(test_run_id, tests, node_of_rank, status));
    return dir;
}

std::filesystem::path write_gpu_run(const std::filesystem::path& dir, const std::vector<Trace>& traces,
                                    const std::vector<std::string>& gpu_name_of_rank,
                                    const std::vector<std::string>& tests) {
    std::filesystem::create_directories(dir);
    std::vector<std::string> node_of_rank;
    for (const Trace& trace : traces) {
        node_of_rank.push_back(trace.header.node);
        bench::write_trace_file(dir / default_trace_file_name(trace.header.rank), trace);
    }
    bench::write_run_json(dir, bench::make_run_json(test_run_id, tests, node_of_rank, "complete",
                                                    std::vector<int>(traces.size(), 0), {}, gpu_name_of_rank));
    return dir;
}

std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace shakedown::analysis::testing
