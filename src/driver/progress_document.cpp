#include "driver/progress_document.hpp"

#include "core/clock.hpp"
#include "driver/progress_keys.hpp"

namespace shakedown {

namespace key = progress_keys;
using nlohmann::json;

const char* to_string(RunState state) {
    switch (state) {
    case RunState::running: return key::running;
    case RunState::finished: return key::finished_state;
    case RunState::aborted: return key::aborted;
    }
    return key::aborted;
}

json progress_json(const ProgressRun& run, const ProgressSnapshot& snapshot) {
    json current = nullptr;
    if (const auto& test = snapshot.current) {
        current = {{key::key, test->key},
                   {key::index, test->index},
                   {key::started_utc, test->started_utc},
                   {key::started_utc_iso, format_utc(test->started_utc)},
                   {key::elapsed_s, test->elapsed_s},
                   {key::expected_s, test->expected.seconds ? json(*test->expected.seconds) : json(nullptr)},
                   {key::expected_from, test->expected.source}};
    }
    json finished = json::array();
    for (const auto& test : snapshot.finished)
        finished.push_back(
            {{key::key, test.key}, {key::index, test.index}, {key::status, test.status}, {key::seconds, test.seconds}});
    return {{key::schema_version, key::version},
            {key::run_id, run.run_id},
            {key::run_uuid, run.run_uuid},
            {key::suite, run.suite.empty() ? json(nullptr) : json(run.suite)},
            {key::state, to_string(snapshot.state)},
            {key::reason, snapshot.state == RunState::aborted ? json(snapshot.reason) : json(nullptr)},
            {key::started_utc, run.started_utc},
            {key::started_utc_iso, format_utc(run.started_utc)},
            {key::updated_utc, snapshot.updated_utc},
            {key::updated_utc_iso, format_utc(snapshot.updated_utc)},
            {key::tests, run.tests},
            {key::tests_total, run.tests.size()},
            {key::tests_done, snapshot.finished.size()},
            {key::current, current},
            {key::finished, finished}};
}

}  // namespace shakedown
