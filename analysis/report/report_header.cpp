#include "analysis/report/report_header.hpp"

#include "analysis/report/markup.hpp"

#include "analysis/rules/settings/calibrated_references_data.hpp"
#include "analysis/rules/settings/default_thresholds.hpp"
#include "core/clock.hpp"
#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/input_limits.hpp"
#include "core/json_text.hpp"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <cmath>

namespace shakedown::analysis {
namespace {

std::string text_of(const nlohmann::json& value) {
    if (value.is_null()) return not_recorded;
    if (value.is_string()) return value.get<std::string>().empty() ? std::string(not_recorded) : value.get<std::string>();
    return json_text(value);
}

std::string slurm_field(const nlohmann::json& slurm, const char* key) {
    return slurm.contains(key) ? text_of(slurm[key]) : std::string(not_recorded);
}

std::string duration_text(double seconds) {
    const auto whole = static_cast<long long>(std::llround(seconds));
    return fmt::format("{:02d}:{:02d}:{:02d} ({} s)", whole / 3600, (whole / 60) % 60, whole % 60, whole);
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("OpenSSL could not compute a sha256");
    std::string hex;
    for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
    return hex;
}

std::vector<ThresholdsSource> thresholds_sources(const std::optional<std::filesystem::path>& thresholds_file) {
    std::vector<ThresholdsSource> sources{
        {"built-in default.yaml", "built-in", sha256_hex(default_thresholds_yaml())},
        {"built-in calibrated.yaml", "built-in", sha256_hex(calibrated_references_yaml())}};
    if (thresholds_file)
        sources.push_back({"--thresholds", thresholds_file->string(),
                           sha256_hex(read_input_file(*thresholds_file, input_limits::max_text_file_bytes,
                                                      fmt::format("{}: cannot read the thresholds file: ",
                                                                  thresholds_file->string())))});
    return sources;
}

ReportHeader make_report_header(const RunManifest& manifest, const nlohmann::json& leader_inventory,
                                std::vector<ThresholdsSource> thresholds, double analyzed_utc) {
    ReportHeader header;
    header.run_id = manifest.run_id;
    header.run_uuid = manifest.run_uuid.empty() ? std::string(not_recorded) : manifest.run_uuid;
    header.status = manifest.status;
    // A run.json always has a start; 0 is what a damaged or hand-made one leaves.
    const bool started = manifest.start_utc > 0.0;
    header.started_utc = started ? format_utc(manifest.start_utc) : std::string(not_recorded);
    header.ended_utc = manifest.end_utc ? format_utc(*manifest.end_utc) : std::string(not_recorded);
    header.duration = started && manifest.end_utc && *manifest.end_utc >= manifest.start_utc
                          ? duration_text(*manifest.end_utc - manifest.start_utc)
                          : std::string(not_recorded);
    if (manifest.slurm.is_object())
        header.slurm = SlurmFacts{slurm_field(manifest.slurm, "job_id"), slurm_field(manifest.slurm, "partition"),
                                  slurm_field(manifest.slurm, "nodelist"), slurm_field(manifest.slurm, "job_name"),
                                  slurm_field(manifest.slurm, "num_nodes")};

    header.versions.emplace_back("shakedown-analyze", SHAKEDOWN_VERSION);
    header.versions.emplace_back("shakedown (the run)",
                                 manifest.shakedown_version.empty() ? std::string(not_recorded) : manifest.shakedown_version);
    // run.json's versions (rank 0's inventory as the driver wrote it), then what only the trace's
    // inventory holds (a run.json of an older or synthetic run may record fewer).
    nlohmann::json versions = manifest.versions.is_object() ? manifest.versions : nlohmann::json::object();
    if (leader_inventory.is_object() && leader_inventory.contains("versions") && leader_inventory["versions"].is_object())
        for (const auto& [name, value] : leader_inventory["versions"].items())
            if (!versions.contains(name)) versions[name] = value;
    if (!versions.contains("nvidia_driver") && leader_inventory.is_object() && leader_inventory.contains("nvml") &&
        leader_inventory["nvml"].is_object() && leader_inventory["nvml"].contains("driver_version"))
        versions["nvidia_driver"] = leader_inventory["nvml"]["driver_version"];
    versions.erase("shakedown");  // shown above as the run's
    for (const auto& [name, value] : versions.items()) header.versions.emplace_back(name, text_of(value));
    header.thresholds = std::move(thresholds);
    header.analyzed_utc = format_utc(analyzed_utc);
    return header;
}

nlohmann::json header_view(const ReportHeader& header) {
    nlohmann::json view = {{"run_id", header.run_id},           {"run_uuid", header.run_uuid},
                           {"status", header.status},           {"started_utc", header.started_utc},
                           {"ended_utc", header.ended_utc},     {"duration", header.duration},
                           {"analyzed_utc", header.analyzed_utc}, {"versions", nlohmann::json::array()},
                           {"thresholds", nlohmann::json::array()}};
    if (header.slurm)
        view["slurm"] = {{"job_id", header.slurm->job_id},     {"partition", header.slurm->partition},
                         {"nodelist", header.slurm->nodelist}, {"job_name", header.slurm->job_name},
                         {"num_nodes", header.slurm->num_nodes}};
    else
        view["slurm"] = false;
    for (const auto& [name, value] : header.versions) view["versions"].push_back({{"name", name}, {"value", value}});
    for (const ThresholdsSource& source : header.thresholds)
        view["thresholds"].push_back({{"label", source.label}, {"path", source.path}, {"sha256", source.sha256}});
    view["configuration"] = false;
    view["planted"] = false;
    if (header.configuration) {
        const RunConfiguration& configuration = *header.configuration;
        view["configuration"] = {{"sha256", configuration.sha256},
                                 {"text", configuration.text},
                                 {"problem", configuration.problem.empty() ? nlohmann::json(false)
                                                                           : nlohmann::json(configuration.problem)}};
        if (!configuration.planted_faults.empty()) view["planted"] = {{"faults", configuration.planted_faults}};
    }
    // The printed page: its size, and a footer naming the run on every page (page x of y beside it).
    view["paper"] = header.paper;
    view["footer_css"] =
        css_string_literal(fmt::format("shakedown run {}, analyzed {}", header.run_id, header.analyzed_utc));
    return view;
}

}  // namespace shakedown::analysis
