#include "analysis/run_manifest.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <fstream>

namespace shakedown::analysis {
namespace {

using nlohmann::json;

// Typed access to run.json with messages that name the field ("ranks[3].node: expected a string").
class ManifestFields {
public:
    explicit ManifestFields(std::string context) : context_(std::move(context)) {}

    [[noreturn]] void reject(const std::string& problem) const { throw InputError(context_ + problem); }

    const json& member(const json& object, const std::string& key, const std::string& where) const {
        auto found = object.find(key);
        if (found == object.end()) reject(fmt::format("run.json: {}{} is missing", where, key));
        return *found;
    }

    std::string string(const json& object, const std::string& key, const std::string& where = "") const {
        const json& value = member(object, key, where);
        if (!value.is_string()) reject(fmt::format("run.json: {}{}: expected a string", where, key));
        return value.get<std::string>();
    }

    std::string optional_string(const json& object, const std::string& key) const {
        auto found = object.find(key);
        return found != object.end() && found->is_string() ? found->get<std::string>() : std::string{};
    }

    int integer(const json& object, const std::string& key, const std::string& where = "") const {
        const json& value = member(object, key, where);
        if (!value.is_number_integer()) reject(fmt::format("run.json: {}{}: expected an integer", where, key));
        return value.get<int>();
    }

    const json& array(const json& object, const std::string& key) const {
        const json& value = member(object, key, "");
        if (!value.is_array()) reject(fmt::format("run.json: {}: expected a list", key));
        return value;
    }

private:
    std::string context_;
};

ManifestRank parse_rank(const ManifestFields& fields, const json& entry, std::size_t position, int world_size) {
    const std::string where = fmt::format("ranks[{}].", position);
    if (!entry.is_object()) fields.reject(fmt::format("run.json: ranks[{}]: expected an object", position));
    ManifestRank rank;
    rank.rank = fields.integer(entry, "rank", where);
    if (rank.rank < 0 || rank.rank >= world_size)
        fields.reject(fmt::format("run.json: {}rank: {} is outside 0..{}", where, rank.rank, world_size - 1));
    rank.node = fields.string(entry, "node", where);
    if (auto local = entry.find("local_rank"); local != entry.end() && local->is_number_integer())
        rank.local_rank = local->get<int>();
    if (auto gpu = entry.find("gpu"); gpu != entry.end() && gpu->is_number_integer() && gpu->get<long long>() >= 0 &&
                                      gpu->get<long long>() < 1024)
        rank.gpu = gpu->get<int>();
    rank.trace_file = fields.optional_string(entry, "trace");
    if (rank.trace_file.empty()) rank.trace_file = default_trace_file_name(rank.rank);
    // The trace must lie inside the run folder: run.json is input, not a licence to read anywhere.
    if (std::filesystem::path(rank.trace_file).filename() != rank.trace_file)
        fields.reject(fmt::format("run.json: {}trace: '{}' is not a plain file name", where, rank.trace_file));
    return rank;
}

}  // namespace

std::string default_trace_file_name(int rank) { return fmt::format("rank-{:05d}.h5", rank); }

RunManifest read_run_manifest(const std::filesystem::path& run_dir) {
    const ManifestFields fields(run_dir.string() + " is not a shakedown run folder: ");
    std::error_code error;
    if (!std::filesystem::is_directory(run_dir, error)) fields.reject("not a directory");
    const std::filesystem::path path = run_dir / run_manifest_file_name;
    std::ifstream in(path);
    if (!in) fields.reject("run.json is missing or unreadable");

    const json document = json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (document.is_discarded()) fields.reject("run.json is not valid JSON");
    if (!document.is_object()) fields.reject("run.json: expected a JSON object");

    RunManifest manifest;
    manifest.run_id = fields.string(document, "run_id");
    manifest.world_size = fields.integer(document, "world_size");
    if (manifest.world_size < 1) fields.reject("run.json: world_size must be at least 1");
    manifest.status = fields.string(document, "status");
    if (manifest.status != "running" && manifest.status != "complete" && manifest.status != "aborted")
        fields.reject(fmt::format("run.json: status '{}' is not running, complete or aborted", manifest.status));
    manifest.suite = fields.optional_string(document, "suite");
    manifest.tag = fields.optional_string(document, "tag");
    if (auto tests = document.find("tests"); tests != document.end() && tests->is_array())
        for (const json& test : *tests)
            if (test.is_string()) manifest.tests.push_back(test.get<std::string>());
    if (auto start = document.find("start_utc"); start != document.end() && start->is_number())
        manifest.start_utc = start->get<double>();
    if (auto end = document.find("end_utc"); end != document.end() && end->is_number())
        manifest.end_utc = end->get<double>();

    const json& ranks = fields.array(document, "ranks");
    for (std::size_t i = 0; i < ranks.size(); ++i)
        manifest.ranks.push_back(parse_rank(fields, ranks[i], i, manifest.world_size));

    if (auto nodes = document.find("nodes"); nodes != document.end() && nodes->is_array()) {
        for (std::size_t i = 0; i < nodes->size(); ++i) {
            const json& entry = (*nodes)[i];
            const std::string where = fmt::format("nodes[{}].", i);
            if (!entry.is_object()) fields.reject(fmt::format("run.json: nodes[{}]: expected an object", i));
            ManifestNode node;
            node.name = fields.string(entry, "name", where);
            node.index = entry.contains("index") && entry["index"].is_number_integer() ? entry["index"].get<int>()
                                                                                      : static_cast<int>(i);
            if (auto node_ranks = entry.find("ranks"); node_ranks != entry.end() && node_ranks->is_array())
                for (const json& rank : *node_ranks)
                    if (rank.is_number_integer()) node.ranks.push_back(rank.get<int>());
            manifest.nodes.push_back(std::move(node));
        }
    }
    manifest.document = document;
    return manifest;
}

}  // namespace shakedown::analysis
