// shakedown-analyze calibrate: a site's calibrated figures from its own healthy reference runs
// (its golden nodes), in the format of analysis/thresholds/calibrated.yaml, for `--calibrated FILE`.
// Every run is judged first with the same rules as an analysis: one that is not healthy (a FAIL,
// a rank missing, something to fix), runs of mixed parts, or too few runs are refused with one line.
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <vector>

namespace shakedown::analysis {

struct CalibrateOptions {
    std::vector<std::filesystem::path> runs;  // healthy reference runs of one GPU part
    std::filesystem::path output;             // the calibration file to write; never overwritten
    int min_runs = 3;                         // a figure needs this many runs that measured it
    std::optional<std::filesystem::path> thresholds_file;  // the rules the runs are judged by
};

// Exit codes: 0 written, 2 refused (bad input, a run not healthy, mixed parts, too few runs).
int calibrate(const CalibrateOptions& options, std::ostream& out, std::ostream& err);

}  // namespace shakedown::analysis
