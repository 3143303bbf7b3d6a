#include "slurm/job_wait.hpp"

#include "core/process_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <regex>
#include <thread>

namespace shakedown::slurm {
namespace {

using Clock = std::chrono::steady_clock;

// The batch script ran to its end in these: its exit code is the job's verdict.
constexpr std::array<std::string_view, 2> script_ended_states = {"COMPLETED", "FAILED"};
// Slurm ended the job itself, or it never ran: no verdict.
constexpr std::array<std::string_view, 7> ended_by_slurm_states = {"CANCELLED", "TIMEOUT",       "NODE_FAIL", "PREEMPTED",
                                                                   "BOOT_FAIL", "OUT_OF_MEMORY", "DEADLINE"};

template <std::size_t N>
bool is_one_of(std::string_view state, const std::array<std::string_view, N>& states) {
    return std::find(states.begin(), states.end(), state) != states.end();
}

// '|'-separated fields (squeue -o, sacct -P): no field of those asked for contains '|'.
std::vector<std::string> split_bars(const std::string& line) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (auto bar = line.find('|'); bar != std::string::npos; bar = line.find('|', start)) {
        fields.push_back(line.substr(start, bar - start));
        start = bar + 1;
    }
    fields.push_back(line.substr(start));
    return fields;
}

// Slurm's "code:signal" (ExitCode=3:0).
void set_exit_code(JobSighting& sighting, const std::string& text) {
    static const std::regex exit_code(R"((\d+):(\d+))");
    std::smatch match;
    if (!std::regex_match(text, match, exit_code)) return;
    sighting.exit_code = std::stoi(match[1]);
    if (const int signal = std::stoi(match[2]); signal != 0) sighting.signal = signal;
}

// sacct writes "CANCELLED by 0" for a cancelled job: the state is the first word.
std::string state_word(const std::string& text) { return text.substr(0, text.find(' ')); }

bool says_invalid_job(const ProcessResult& result) {
    return result.err.find("Invalid job id") != std::string::npos || result.out.find("Invalid job id") != std::string::npos;
}

std::string failure_text(const std::vector<std::string>& argv, const ProcessResult& result) {
    if (result.timed_out) return fmt::format("'{}' timed out", describe_command(argv));
    const auto message = first_line(result.err.empty() ? result.out : result.err);
    return fmt::format("'{}' failed: {}", describe_command(argv),
                       message.empty() ? fmt::format("exit code {}", result.exit_code) : message);
}

JobSighting look_with_scontrol(const std::string& job_id, const SlurmTools& tools, double timeout_s) {
    const std::vector<std::string> argv = {tools.scontrol, "show", "job", "-o", job_id};
    const auto result = run_process(argv, timeout_s);
    JobSighting sighting;
    if (result.exit_code != 0) return sighting;
    // One line of Key=Value words; the values read here never contain spaces.
    const auto value = [&](const std::string& key) -> std::optional<std::string> {
        const std::regex pattern("(?:^|\\s)" + key + "=(\\S*)");
        std::smatch match;
        if (!std::regex_search(result.out, match, pattern)) return std::nullopt;
        return match[1].str();
    };
    const auto state = value("JobState");
    if (!state) return sighting;
    sighting.known = true;
    sighting.source = "scontrol";
    sighting.state = *state;
    sighting.reason = value("Reason").value_or("");
    sighting.nodes = value("NodeList").value_or("");
    if (sighting.nodes == "(null)") sighting.nodes.clear();
    if (const auto code = value("ExitCode")) set_exit_code(sighting, *code);
    return sighting;
}

JobSighting look_with_sacct(const std::string& job_id, const SlurmTools& tools, double timeout_s) {
    const std::vector<std::string> argv = {tools.sacct, "-n", "-X", "-P", "-j", job_id, "-o", "State,ExitCode,NodeList"};
    const auto result = run_process(argv, timeout_s);
    JobSighting sighting;
    const auto line = first_line(result.out);
    if (result.exit_code != 0 || line.empty()) return sighting;  // no accounting, or it does not know the job
    const auto fields = split_bars(line);
    if (fields.size() < 2 || fields[0].empty()) return sighting;
    sighting.known = true;
    sighting.source = "sacct";
    sighting.state = state_word(fields[0]);
    set_exit_code(sighting, fields[1]);
    if (fields.size() > 2 && fields[2] != "None assigned") sighting.nodes = fields[2];
    return sighting;
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string ended_message(const std::string& job_id, const JobSighting& end) {
    return fmt::format("job {} ended {}", job_id, end.describe());
}

WaitOutcome judge_end(const std::string& job_id, const JobSighting& end, WaitOutcome outcome) {
    outcome.last_seen = end;
    if (is_one_of(end.state, script_ended_states) && !end.signal && (end.exit_code || end.state == "COMPLETED")) {
        outcome.end = WaitOutcome::End::exited;
        outcome.exit_code = end.exit_code.value_or(0);  // COMPLETED means every exit code was 0
        outcome.message = ended_message(job_id, end);
    } else if (is_one_of(end.state, script_ended_states) && !end.signal) {
        outcome.end = WaitOutcome::End::lost;
        outcome.message = fmt::format("{}, but no exit code could be read: no verdict", ended_message(job_id, end));
    } else {
        outcome.end = WaitOutcome::End::ended_by_slurm;
        outcome.message = fmt::format("{}{}: Slurm ended it before its script gave a verdict",
                                      ended_message(job_id, end),
                                      end.signal ? fmt::format(", killed by signal {}", *end.signal) : std::string());
    }
    return outcome;
}

}  // namespace

std::string JobSighting::describe() const {
    if (!known) return "nothing (no Slurm command knew the job)";
    std::string text = state.empty() ? std::string("in an unknown state") : state;
    if (!reason.empty() && reason != "None") text += fmt::format(" (reason {})", reason);
    if (!nodes.empty()) text += " on " + nodes;
    if (exit_code && is_final_job_state(state)) text += fmt::format(" with exit code {}:{}", *exit_code, signal.value_or(0));
    if (!source.empty()) text += ", from " + source;
    return text;
}

JobSighting look_with_squeue(const std::string& job_id, const SlurmTools& tools, double timeout_s, std::string* error) {
    // -t all: squeue shows a finished job too while the controller still holds it.
    const std::vector<std::string> argv = {tools.squeue, "-h", "-t", "all", "-j", job_id, "-o", "%T|%r|%N"};
    const auto result = run_process(argv, timeout_s);
    JobSighting sighting;
    if (result.exit_code != 0) {
        if (!says_invalid_job(result) && error != nullptr) *error = failure_text(argv, result);
        return sighting;  // an invalid job id: the controller has forgotten the job
    }
    const auto line = first_line(result.out);
    if (line.empty()) return sighting;
    const auto fields = split_bars(line);
    sighting.known = true;
    sighting.source = "squeue";
    sighting.state = fields[0];
    if (fields.size() > 1) sighting.reason = fields[1];
    if (fields.size() > 2) sighting.nodes = fields[2];
    return sighting;
}

JobSighting look_at_end(const std::string& job_id, const SlurmTools& tools, double timeout_s) {
    if (auto sighting = look_with_scontrol(job_id, tools, timeout_s); sighting.known) return sighting;
    return look_with_sacct(job_id, tools, timeout_s);
}

bool is_final_job_state(std::string_view state) {
    return is_one_of(state, script_ended_states) || is_one_of(state, ended_by_slurm_states);
}

long default_wait_timeout_s(long time_limit_s) { return time_limit_s + 300; }

WaitOutcome wait_for_job(const std::string& job_id, const SlurmTools& tools, const WaitOptions& options) {
    const auto start = Clock::now();
    WaitOutcome outcome;
    std::string last_error;
    auto pause = options.first_poll_s;
    for (;;) {
        const double left = options.timeout_s - seconds_since(start);
        // Each command gets at most what is left (and a few seconds), so the wait never hangs on
        // a controller that does not answer.
        const double command_timeout = std::clamp(left, 5.0, 60.0);
        std::string error;
        const auto sighting = look_with_squeue(job_id, tools, command_timeout, &error);
        if (sighting.known) {
            outcome.last_seen = sighting;
            last_error.clear();
        } else if (!error.empty()) {
            last_error = error;
        }
        const bool gone = !sighting.known && error.empty();
        if (gone || (sighting.known && is_final_job_state(sighting.state))) {
            const auto end = look_at_end(job_id, tools, command_timeout);
            outcome.waited_s = seconds_since(start);
            if (end.known && is_final_job_state(end.state)) return judge_end(job_id, end, outcome);
            if (!end.known && sighting.known) return judge_end(job_id, sighting, outcome);
            if (!end.known) {
                outcome.end = WaitOutcome::End::lost;
                outcome.message = fmt::format(
                    "job {} left the queue and neither scontrol nor sacct says how it ended (last seen {}): no verdict",
                    job_id, outcome.last_seen.describe());
                return outcome;
            }
            outcome.last_seen = end;  // still completing: look again
        }
        if (left <= 0) break;
        std::this_thread::sleep_for(std::chrono::duration<double>(std::min(pause, std::max(left, 0.0))));
        pause = std::min(pause * 1.5, options.max_poll_s);
    }
    outcome.end = WaitOutcome::End::timed_out;
    outcome.waited_s = seconds_since(start);
    outcome.message = fmt::format("gave up waiting for job {} after {:.0f} s (the wait timeout): last seen {}{}; the job "
                                  "is left as it is (scancel {} ends it)",
                                  job_id, outcome.waited_s, outcome.last_seen.describe(),
                                  last_error.empty() ? std::string() : fmt::format(", then {}", last_error), job_id);
    return outcome;
}

}  // namespace shakedown::slurm
