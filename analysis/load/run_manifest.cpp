#include "analysis/load/run_manifest.hpp"

#include "core/errors.hpp"

#include <fstream>

namespace shakedown::analysis {

RunManifest read_run_manifest(const std::filesystem::path& run_dir) {
    const std::string context = run_dir.string() + " is not a shakedown run folder: ";
    std::error_code error;
    if (!std::filesystem::is_directory(run_dir, error)) throw InputError(context + "not a directory");
    std::ifstream in(run_dir / run_manifest_file_name);
    if (!in) throw InputError(context + "run.json is missing or unreadable");
    const nlohmann::json document = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (document.is_discarded()) throw InputError(context + "run.json is not valid JSON");
    return parse_run_manifest(document, context);
}

}  // namespace shakedown::analysis
