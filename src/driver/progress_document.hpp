// The content of RUN/progress.json as a value, and its one mapping to JSON (keys from
// driver/progress_keys.hpp). The heartbeat fills it; writing the file is the heartbeat's.
#pragma once

#include "driver/expected_duration.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace shakedown {

enum class RunState { running, finished, aborted };

struct ProgressRun {
    std::string run_id;
    std::string run_uuid;
    std::string suite;  // empty when the run named its tests
    std::vector<std::string> tests;
    double started_utc = 0.0;
};

struct RunningTest {
    std::size_t index = 0;
    std::string key;
    double started_utc = 0.0;
    double elapsed_s = 0.0;
    ExpectedDuration expected;
};

struct FinishedTest {
    std::size_t index = 0;
    std::string key;
    std::string status;  // the worst of any rank
    double seconds = 0.0;
};

struct ProgressSnapshot {
    RunState state = RunState::running;
    std::optional<RunningTest> current;
    std::vector<FinishedTest> finished;
    std::string reason;  // why the run was aborted
    double updated_utc = 0.0;
};

const char* to_string(RunState state);
nlohmann::json progress_json(const ProgressRun& run, const ProgressSnapshot& snapshot);

}  // namespace shakedown
