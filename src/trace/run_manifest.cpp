#include "trace/run_manifest.hpp"

#include "core/clock.hpp"
#include "core/errors.hpp"
#include "core/input_limits.hpp"
#include "core/json_text.hpp"
#include "core/printable_text.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace shakedown {
namespace {

using nlohmann::json;

// The major version this reader understands (minor versions only add members).
constexpr std::string_view supported_manifest_major = "1";

namespace key {
constexpr const char* schema_version = "schema_version";
constexpr const char* run_id = "run_id";
constexpr const char* run_uuid = "run_uuid";
constexpr const char* shakedown_version = "shakedown_version";
constexpr const char* command_line = "command_line";
constexpr const char* suite = "suite";
constexpr const char* tests = "tests";
constexpr const char* tag = "tag";
constexpr const char* profile = "profile";
constexpr const char* world_size = "world_size";
constexpr const char* nodes = "nodes";
constexpr const char* ranks = "ranks";
constexpr const char* versions = "versions";
constexpr const char* start_utc = "start_utc";
constexpr const char* start_utc_iso = "start_utc_iso";
constexpr const char* end_utc = "end_utc";
constexpr const char* end_utc_iso = "end_utc_iso";
constexpr const char* status = "status";
constexpr const char* slurm = "slurm";
// nodes[] and ranks[]
constexpr const char* name = "name";
constexpr const char* index = "index";
constexpr const char* rank = "rank";
constexpr const char* node = "node";
constexpr const char* node_index = "node_index";
constexpr const char* local_rank = "local_rank";
constexpr const char* gpu = "gpu";
constexpr const char* gpu_uuid = "gpu_uuid";
constexpr const char* gpu_name = "gpu_name";
constexpr const char* trace = "trace";
// manifest_cost
constexpr const char* manifest_cost = "manifest_cost";
constexpr const char* barrier_s = "barrier_s";
constexpr const char* gather_s = "gather_s";
constexpr const char* write_s = "write_s";
constexpr const char* bytes = "bytes";
}  // namespace key

// Typed access with messages that name the field ("ranks[3].node: expected a string").
class ManifestFields {
public:
    explicit ManifestFields(std::string context) : context_(std::move(context)) {}

    [[noreturn]] void reject(const std::string& problem) const { throw InputError(context_ + "run.json: " + problem); }

    const json& member(const json& object, const std::string& name, const std::string& where) const {
        auto found = object.find(name);
        if (found == object.end()) reject(fmt::format("{}{} is missing", where, name));
        return *found;
    }

    std::string string(const json& object, const std::string& name, const std::string& where = "") const {
        const json& value = member(object, name, where);
        if (!value.is_string()) reject(fmt::format("{}{}: expected a string", where, name));
        return value.get<std::string>();
    }

    // The optional members: absent or null means "not recorded"; any other type is refused,
    // naming the member (a string `tests` once turned off the "no result recorded" check).
    const json* optional_member(const json& object, const std::string& name) const {
        auto found = object.find(name);
        return found == object.end() || found->is_null() ? nullptr : &*found;
    }

    std::string optional_string(const json& object, const std::string& name, const std::string& where = "") const {
        const json* value = optional_member(object, name);
        if (value == nullptr) return {};
        if (!value->is_string()) reject(fmt::format("{}{}: expected a string", where, name));
        return value->get<std::string>();
    }

    std::optional<int> optional_integer(const json& object, const std::string& name, const std::string& where, int least,
                                        int most) const {
        const json* value = optional_member(object, name);
        if (value == nullptr) return std::nullopt;
        return integer_value(*value, where + name, least, most);
    }

    std::optional<double> optional_number(const json& object, const std::string& name) const {
        const json* value = optional_member(object, name);
        if (value == nullptr) return std::nullopt;
        if (!value->is_number()) reject(fmt::format("{}: expected a number", name));
        return value->get<double>();
    }

    // A time stamp: a calendar time (core/clock.hpp), as the driver writes it.
    std::optional<double> optional_time(const json& object, const std::string& name) const {
        const std::optional<double> seconds = optional_number(object, name);
        if (seconds && !is_calendar_time(*seconds))
            reject(fmt::format("{}: {} is not a time (0..{} s since 1970)", name, *seconds, latest_calendar_utc));
        return seconds;
    }

    std::vector<std::string> optional_strings(const json& object, const std::string& name) const {
        const json* value = optional_member(object, name);
        if (value == nullptr) return {};
        if (!value->is_array()) reject(fmt::format("{}: expected a list of strings", name));
        std::vector<std::string> strings;
        for (std::size_t i = 0; i < value->size(); ++i) {
            if (!(*value)[i].is_string()) reject(fmt::format("{}[{}]: expected a string", name, i));
            strings.push_back((*value)[i].get<std::string>());
        }
        return strings;
    }

    const json* optional_object(const json& object, const std::string& name) const {
        const json* value = optional_member(object, name);
        if (value != nullptr && !value->is_object()) reject(fmt::format("{}: expected an object", name));
        return value;
    }

    // A whole number in least..most. JSON's integers are 64-bit: one outside the range is
    // refused as it stands (4294967298 is not read as 2).
    int integer(const json& object, const std::string& name, const std::string& where, int least, int most) const {
        const json& value = member(object, name, where);
        return integer_value(value, where + name, least, most);
    }

    int integer_value(const json& value, const std::string& what, int least, int most) const {
        if (!value.is_number_integer()) reject(fmt::format("{}: expected an integer", what));
        const bool in_range = value.is_number_unsigned() ? value.get<std::uint64_t>() <= static_cast<std::uint64_t>(most)
                                                         : value.get<std::int64_t>() >= least && value.get<std::int64_t>() <= most;
        if (!in_range) reject(fmt::format("{}: {} is outside {}..{}", what, json_text(value), least, most));
        return static_cast<int>(value.get<std::int64_t>());
    }

    const json& array(const json& object, const std::string& name) const {
        const json& value = member(object, name, "");
        if (!value.is_array()) reject(fmt::format("{}: expected a list", name));
        return value;
    }

private:
    std::string context_;
};

ManifestRank parse_rank(const ManifestFields& fields, const json& entry, std::size_t position, int world_size) {
    const std::string where = fmt::format("ranks[{}].", position);
    if (!entry.is_object()) fields.reject(fmt::format("ranks[{}]: expected an object", position));
    ManifestRank rank;
    rank.rank = fields.integer(entry, key::rank, where, 0, world_size - 1);
    rank.node = fields.string(entry, key::node, where);
    constexpr int max_rank = input_limits::max_world_size - 1;
    rank.local_rank = fields.optional_integer(entry, key::local_rank, where, 0, max_rank).value_or(0);
    rank.node_index = fields.optional_integer(entry, key::node_index, where, 0, max_rank).value_or(0);
    rank.gpu = fields.optional_integer(entry, key::gpu, where, 0, input_limits::max_gpus_per_node - 1);
    rank.gpu_uuid = fields.optional_string(entry, key::gpu_uuid, where);
    rank.gpu_name = fields.optional_string(entry, key::gpu_name, where);
    rank.trace_file = fields.optional_string(entry, key::trace, where);
    rank.trace_file = fields.optional_string(entry, key::trace, where);
    // Not recorded (absent, null or ""): where every run.json before 1.2 placed it.
    if (rank.trace_file.empty()) rank.trace_file = default_trace_file_name(rank.rank);
    // The trace must lie inside the run folder: run.json is input, not a licence to read anywhere.
    if (const auto unsafe = unsafe_trace_path_because(rank.trace_file))
        fields.reject(fmt::format("{}trace: '{}' is not a path inside the run folder ({})", where,
                                  escape_control(rank.trace_file), *unsafe));  // a NUL would end the message
    return rank;
}

json optional_number(const std::optional<double>& value) { return value ? json(*value) : json(nullptr); }

std::optional<ManifestCost> parse_cost(const ManifestFields& fields, const json& document) {
    const json* cost = fields.optional_object(document, key::manifest_cost);
    if (cost == nullptr) return std::nullopt;
    const auto seconds = [&](const char* name) {
        const json& value = fields.member(*cost, name, "manifest_cost.");
        if (!value.is_number() || value.get<double>() < 0.0)
            fields.reject(fmt::format("manifest_cost.{}: expected a number of seconds >= 0", name));
        return value.get<double>();
    };
    ManifestCost parsed;
    parsed.barrier_s = seconds(key::barrier_s);
    parsed.gather_s = seconds(key::gather_s);
    parsed.write_s = seconds(key::write_s);
    const json& bytes = fields.member(*cost, key::bytes, "manifest_cost.");
    if (!bytes.is_number_unsigned()) fields.reject("manifest_cost.bytes: expected a whole number >= 0");
    parsed.bytes = bytes.get<std::uint64_t>();
    return parsed;
}

json cost_json(const std::optional<ManifestCost>& cost) {
    if (!cost) return nullptr;
    return {{key::barrier_s, cost->barrier_s},
            {key::gather_s, cost->gather_s}, {key::write_s, cost->write_s}, {key::bytes, cost->bytes}};
}

}  // namespace

std::string default_trace_file_name(int rank) { return fmt::format("rank-{:05d}.h5", rank); }

std::filesystem::path trace_block_folder(int rank) {
    const int first = rank / ranks_per_trace_folder * ranks_per_trace_folder;
    return std::filesystem::path(trace_folder_name) / fmt::format("{:05d}-{:05d}", first, first + ranks_per_trace_folder - 1);
}

std::filesystem::path trace_relative_path(int rank) { return trace_block_folder(rank) / default_trace_file_name(rank); }

std::optional<std::string> unsafe_trace_path_because(const std::string& path) {
    if (path.empty()) return "empty";
    if (path.find('\0') != std::string::npos) return "a NUL byte";  // the file system would see a shorter path
    const std::filesystem::path parsed(path);
    if (parsed.is_absolute() || parsed.has_root_directory()) return "an absolute path";
    for (const std::filesystem::path& component : parsed)
        if (component == "..") return "a '..' component";
    return std::nullopt;
}

json to_json(const RunManifest& manifest) {
    json nodes = json::array();
    for (const ManifestNode& node : manifest.nodes)
        nodes.push_back({{key::name, node.name}, {key::index, node.index}, {key::ranks, node.ranks}});
    json ranks = json::array();
    for (const ManifestRank& rank : manifest.ranks)
        ranks.push_back({{key::rank, rank.rank},
                         {key::node, rank.node},
                         {key::node_index, rank.node_index},
                         {key::local_rank, rank.local_rank},
                         {key::gpu, rank.gpu ? json(*rank.gpu) : json(nullptr)},
                         {key::gpu_uuid, rank.gpu_uuid.empty() ? json(nullptr) : json(rank.gpu_uuid)},
                         {key::gpu_name, rank.gpu_name.empty() ? json(nullptr) : json(rank.gpu_name)},
                         {key::trace, rank.trace_file}});
    return {{key::schema_version, run_manifest_schema_version},
            {key::run_id, manifest.run_id},
            {key::run_uuid, manifest.run_uuid.empty() ? json(nullptr) : json(manifest.run_uuid)},
            {key::shakedown_version, manifest.shakedown_version},
            {key::command_line, manifest.command_line},
            {key::suite, manifest.suite.empty() ? json(nullptr) : json(manifest.suite)},
            {key::tests, manifest.tests},
            {key::tag, manifest.tag},
            {key::profile, manifest.profile.empty() ? json(nullptr) : json(manifest.profile)},
            {key::world_size, manifest.world_size},
            {key::nodes, std::move(nodes)},
            {key::ranks, std::move(ranks)},
            {key::versions, manifest.versions},
            {key::start_utc, manifest.start_utc},
            {key::start_utc_iso, format_utc(manifest.start_utc)},
            {key::end_utc, optional_number(manifest.end_utc)},
            {key::end_utc_iso, manifest.end_utc ? json(format_utc(*manifest.end_utc)) : json(nullptr)},
            {key::status, manifest.status},
            {key::slurm, manifest.slurm},
            {key::manifest_cost, cost_json(manifest.cost)}};
}

RunManifest parse_run_manifest(const json& document, const std::string& context) {
    const ManifestFields fields(context);
    if (!document.is_object()) fields.reject("expected a JSON object");
    RunManifest manifest;
    if (const json* schema = fields.optional_member(document, key::schema_version)) {
        if (!schema->is_string()) fields.reject(fmt::format("{}: expected a string", key::schema_version));
        const std::string version = schema->get<std::string>();
        if (version.substr(0, version.find('.')) != supported_manifest_major)
            fields.reject(fmt::format("{} '{}' is not supported (this reader reads {}.x)", key::schema_version, version,
                                      supported_manifest_major));
    }
    manifest.run_id = fields.string(document, key::run_id);
    manifest.run_uuid = fields.optional_string(document, key::run_uuid);
    manifest.world_size = fields.integer(document, key::world_size, "", 1, input_limits::max_world_size);
    manifest.status = fields.string(document, key::status);
    if (manifest.status != "running" && manifest.status != "complete" && manifest.status != "aborted")
        fields.reject(fmt::format("status '{}' is not running, complete or aborted", manifest.status));
    manifest.shakedown_version = fields.optional_string(document, key::shakedown_version);
    manifest.suite = fields.optional_string(document, key::suite);
    manifest.tag = fields.optional_string(document, key::tag);
    manifest.profile = fields.optional_string(document, key::profile);
    manifest.tests = fields.optional_strings(document, key::tests);
    manifest.command_line = fields.optional_strings(document, key::command_line);
    manifest.start_utc = fields.optional_time(document, key::start_utc).value_or(0.0);
    manifest.end_utc = fields.optional_time(document, key::end_utc);
    if (const json* versions = fields.optional_object(document, key::versions)) manifest.versions = *versions;
    if (const json* slurm = fields.optional_object(document, key::slurm)) manifest.slurm = *slurm;
    manifest.cost = parse_cost(fields, document);

    const json& ranks = fields.array(document, key::ranks);
    for (std::size_t i = 0; i < ranks.size(); ++i) manifest.ranks.push_back(parse_rank(fields, ranks[i], i, manifest.world_size));

    if (const json* nodes = fields.optional_member(document, key::nodes)) {
        if (!nodes->is_array()) fields.reject(fmt::format("{}: expected a list", key::nodes));
        for (std::size_t i = 0; i < nodes->size(); ++i) {
            const json& entry = (*nodes)[i];
            const std::string where = fmt::format("nodes[{}].", i);
            if (!entry.is_object()) fields.reject(fmt::format("nodes[{}]: expected an object", i));
            ManifestNode node;
            node.name = fields.string(entry, key::name, where);
            node.index = fields.optional_integer(entry, key::index, where, 0, input_limits::max_world_size - 1)
                             .value_or(static_cast<int>(i));
            if (const json* node_ranks = fields.optional_member(entry, key::ranks)) {
                if (!node_ranks->is_array()) fields.reject(fmt::format("{}{}: expected a list", where, key::ranks));
                for (std::size_t r = 0; r < node_ranks->size(); ++r)
                    node.ranks.push_back(fields.integer_value((*node_ranks)[r], fmt::format("{}{}[{}]", where, key::ranks, r),
                                                              0, manifest.world_size - 1));
            }
            manifest.nodes.push_back(std::move(node));
        }
    }
    return manifest;
}

}  // namespace shakedown
