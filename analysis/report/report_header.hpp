// The header a report attached to an acceptance protocol opens with: which run (id, start and end
// UTC, duration, Slurm job, partition and nodelist), with which software (shakedown's version and
// the versions the run recorded: MPI, CUDA, the NVIDIA driver, NCCL, ...), judged against which
// thresholds (each file's path and sha256, the built-in text's sha256 where built in), and when.
#pragma once

#include "analysis/report/run_configuration.hpp"
#include "trace/run_manifest.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shakedown::analysis {

inline constexpr const char* not_recorded = "not recorded";

// One text the judging read its thresholds from.
struct ThresholdsSource {
    std::string label;   // "built-in default.yaml", "built-in calibrated.yaml", "--thresholds"
    std::string path;    // the file given, or "built-in"
    std::string sha256;  // of the exact bytes read, lowercase hex
};

// The built-in texts, then the file given (read again here; throws InputError if unreadable).
std::vector<ThresholdsSource> thresholds_sources(const std::optional<std::filesystem::path>& thresholds_file);

struct SlurmFacts {
    std::string job_id, partition, nodelist, job_name, num_nodes;  // "not recorded" where absent
};

// The page the report prints on (report.html's @page size, and so its PDF's).
enum class PaperSize { a4, letter };

struct ReportHeader {
    std::string run_id;
    std::string run_uuid;
    std::string status;
    std::string started_utc;  // ISO 8601, or "not recorded"
    std::string ended_utc;
    std::string duration;     // "00:10:00 (600 s)", or "not recorded"
    std::optional<SlurmFacts> slurm;  // none outside a Slurm job (or a run.json before it recorded one)
    std::vector<std::pair<std::string, std::string>> versions;  // name, version
    std::vector<ThresholdsSource> thresholds;
    std::string analyzed_utc;
    std::optional<RunConfiguration> configuration;  // none: the run recorded none
    std::string paper = "A4";                       // the CSS page size the report prints on
};

// `leader_inventory`: the inventory of rank 0's node, for the versions run.json lacks (null: none).
ReportHeader make_report_header(const RunManifest& manifest, const nlohmann::json& leader_inventory,
                                std::vector<ThresholdsSource> thresholds, double analyzed_utc);

// The header as the templates read it (report_view.hpp).
nlohmann::json header_view(const ReportHeader& header);

std::string sha256_hex(std::string_view bytes);

}  // namespace shakedown::analysis
