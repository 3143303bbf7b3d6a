#include "analysis/summary_json.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace shakedown::analysis {
namespace {

using nlohmann::json;

json optional_number(const std::optional<double>& value) { return value ? json(*value) : json(nullptr); }

json finding_to_json(const Finding& finding) {
    return {{"node", finding.node},
            {"rank", finding.rank},
            {"test", finding.test},
            {"metric", finding.metric.empty() ? json(nullptr) : json(finding.metric)},
            {"value", optional_number(finding.value)},
            {"unit", finding.unit},
            {"nominal", optional_number(finding.nominal)},
            {"level", to_string(finding.level)},
            {"reason", finding.reason}};
}

json tally_to_json(const TestTally& tally) {
    return {{"passed", tally.passed}, {"warned", tally.warned}, {"failed", tally.failed}, {"waived", tally.waived}};
}

json node_to_json(const NodeVerdict& node) {
    json findings = json::array();
    for (const Finding& finding : node.findings) findings.push_back(finding_to_json(finding));
    json waived = json::array();
    for (const WaivedTest& test : node.waived)
        waived.push_back({{"rank", test.rank}, {"test", test.test}, {"reason", test.reason}});
    return {{"node", node.node},           {"ranks", node.ranks},           {"verdict", to_string(node.verdict)},
            {"tests", tally_to_json(node.tests)}, {"findings", std::move(findings)}, {"waived", std::move(waived)},
            {"incomplete", node.incomplete}};
}

json incomplete_to_json(const LoadedRun& run) {
    json entries = json::array();
    for (const std::string& problem : run.run_problems)
        entries.push_back({{"rank", nullptr}, {"node", nullptr}, {"problem", "run"}, {"text", problem}});
    for (const RankRecord& record : run.ranks) {
        if (record.problem == RankProblem::none) continue;
        entries.push_back({{"rank", record.rank},
                           {"node", record.node.empty() ? json(nullptr) : json(record.node)},
                           {"problem", to_string(record.problem)},
                           {"file", record.trace_path.filename().string()},
                           {"text", record.problem_text}});
    }
    return entries;
}

json counts_to_json(const Judgement& judgement) {
    json nodes = {{"total", judgement.nodes.size()}, {"pass", 0}, {"warn", 0}, {"incomplete", 0}, {"fail", 0}};
    int warn_findings = 0;
    int fail_findings = 0;
    for (const NodeVerdict& node : judgement.nodes) {
        nodes[std::string(to_string(node.verdict))] = nodes[std::string(to_string(node.verdict))].get<int>() + 1;
        for (const Finding& finding : node.findings) (finding.level == Level::fail ? fail_findings : warn_findings)++;
    }
    return {{"nodes", std::move(nodes)},
            {"ranks", {{"expected", judgement.ranks_expected},
                       {"judged", judgement.ranks_judged},
                       {"incomplete", judgement.ranks_incomplete}}},
            {"tests", tally_to_json(judgement.tests)},
            {"findings", {{"fail", fail_findings}, {"warn", warn_findings}}}};
}

// Closes on every path; the temporary file goes away unless it was renamed into place.
class TemporaryFile {
public:
    explicit TemporaryFile(std::filesystem::path path) : path_(std::move(path)) {}
    ~TemporaryFile() {
        if (!committed_) {
            std::error_code ignored;
            std::filesystem::remove(path_, ignored);
        }
    }
    TemporaryFile(const TemporaryFile&) = delete;
    TemporaryFile& operator=(const TemporaryFile&) = delete;
    const std::filesystem::path& path() const { return path_; }
    void commit() { committed_ = true; }

private:
    std::filesystem::path path_;
    bool committed_ = false;
};

}  // namespace

json summary_to_json(const LoadedRun& run, const Judgement& judgement, const SummaryContext& context) {
    json nodes = json::array();
    for (const NodeVerdict& node : judgement.nodes) nodes.push_back(node_to_json(node));
    return {{"schema_version", summary_schema_version},
            {"shakedown_version", SHAKEDOWN_VERSION},
            {"run_id", run.manifest.run_id},
            {"run_dir", run.dir.string()},
            {"run_status", run.manifest.status},
            {"suite", run.manifest.suite},
            {"analyzed_utc", context.analyzed_utc},
            {"thresholds", context.thresholds_source},
            {"verdict", to_string(judgement.overall)},
            {"exit_code", judgement.exit_code()},
            {"counts", counts_to_json(judgement)},
            {"nodes", std::move(nodes)},
            {"incomplete", incomplete_to_json(run)}};
}

void write_file_atomically(const std::filesystem::path& path, const std::string& content) {
    // Same folder as the target, so the rename stays on one file system and is atomic.
    TemporaryFile temporary(path.parent_path() / fmt::format(".{}.tmp-{}", path.filename().string(), ::getpid()));
    {
        std::ofstream out(temporary.path(), std::ios::binary | std::ios::trunc);
        if (!out) throw InputError(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
        out << content;
        out.flush();
        if (!out) throw InputError(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
    }
    std::error_code error;
    std::filesystem::rename(temporary.path(), path, error);
    if (error) throw InputError(fmt::format("cannot write {}: {}", path.string(), error.message()));
    temporary.commit();
}

}  // namespace shakedown::analysis
