#include "analysis/load/run_manifest.hpp"

#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/input_limits.hpp"
#include "core/json_text.hpp"

namespace shakedown::analysis {

RunManifest read_run_manifest(const std::filesystem::path& run_dir) {
    const std::string context = run_dir.string() + " is not a shakedown run folder: ";
    std::error_code error;
    if (!std::filesystem::is_directory(run_dir, error)) throw InputError(context + "not a directory");
    const auto path = run_dir / run_manifest_file_name;
    if (!std::filesystem::exists(std::filesystem::symlink_status(path, error)))
        throw InputError(context + "run.json is missing or unreadable");
    // A regular file of bounded size, checked before it is opened: a FIFO named run.json would
    // block the analyzer, a folder named so was an uncaught stream error.
    const std::string text = read_input_file(path, input_limits::max_run_json_bytes, context + "run.json: ");
    return parse_run_manifest(parse_json_document(text, context + "run.json: "), context);
}

}  // namespace shakedown::analysis
