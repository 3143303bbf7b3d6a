// The one immutable configuration of a run: command line over YAML file over defaults,
// validated against the registry before MPI starts any work, then passed down read-only.
#pragma once

#include "core/params.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown {

class Registry;
class Test;

// Test-only fault injection, so every failure shakedown claims to detect can be planted
// and shown to be caught. Named in the config file, never in the environment.
enum class FaultKind {
    abort,    // the rank kills itself (SIGKILL) when the test starts: a crashed node
    hang,     // the rank stops responding inside the test: the watchdog must end the job
    stop,     // the rank stops itself (SIGSTOP) when the test starts, watchdog included: the
              // other ranks' watchdogs must end the job and name it; with `seconds`, it is
              // continued after that long (a pause shorter than the deadline: reported, not fatal)
    corrupt,  // the test corrupts one element of its result: validation must catch it
    delay,    // the test slows this rank's work by `seconds` per operation: a slow node/link
};

std::string_view to_string(FaultKind kind);  // "abort", "hang", "corrupt", "delay", "stop"

struct FaultSpec {
    FaultKind kind = FaultKind::corrupt;
    std::string test;
    int rank = 0;
    double seconds = 0.0;
    std::string origin;  // where it was declared ("config.yaml:7"), for the messages about it
};

// How rank 0 shows progress: a live line rewritten in place, or one line per test.
enum class ProgressStyle { automatic, live, lines };

struct Config {
    std::string suite = "quick";
    std::vector<std::string> tests;    // explicit list; overrides suite when not empty
    std::vector<std::string> exclude;
    std::string tag;
    std::filesystem::path out_parent = "shakedown-runs";
    std::optional<std::string> run_name;  // exact run folder name under out_parent

    bool telemetry_enabled = true;
    double telemetry_rate_hz = 10.0;
    // Where the RDMA port counters are read (telemetry.infiniband_sysfs_root): the kernel's folder,
    // or a fake tree in tests. A folder that does not exist means no port telemetry, not an error.
    std::filesystem::path infiniband_sysfs_root = "/sys/class/infiniband";
    // The GPU health counters, Xid events and PCIe AER (telemetry.passive_health): on unless a
    // run measures what reading them costs.
    bool passive_health = true;
    ProgressStyle progress = ProgressStyle::automatic;
    // In line mode, one "still running" line at most this often during a long test (progress.still_running_interval_s).
    double still_running_interval_s = 60.0;

    std::optional<double> deadline_s;        // overrides every test's default deadline
    std::map<std::string, double> deadlines; // per test key
    double watchdog_grace_s = 10.0;
    // A rank whose whole process did not run for longer than this inside a test (SIGSTOP, a paused
    // VM, a node swapping) records it in the test's result (watchdog.freeze_report_s).
    double freeze_report_s = 3.0;

    std::map<std::string, std::map<std::string, ParamValue>> params;  // per test key, validated
    std::vector<FaultSpec> faults;
    // Faults of the file for tests that --tests/--exclude left out of this run (a confirmation
    // step, one config for several selections): not planted, and the run says so with these lines.
    std::vector<std::string> unplanted_faults;

    std::string source_yaml;  // the file as given, empty without --config
    std::vector<std::string> command_line;

    // The resolved configuration as YAML text (recorded in every trace's /config).
    std::string resolved_yaml() const;
    TestParams params_for(const Test& test) const;
    double deadline_for(const Test& test) const;
};

// What the command line said; unset fields fall back to the file, then to defaults.
struct CliOverrides {
    std::optional<std::string> suite;
    std::vector<std::string> tests;
    std::vector<std::string> exclude;
    std::optional<std::string> tag;
    std::optional<std::filesystem::path> out_parent;
    std::optional<std::string> run_name;
    std::optional<std::filesystem::path> config_file;
    std::optional<bool> telemetry_enabled;
    std::optional<ProgressStyle> progress;
    std::vector<std::string> command_line;
};

// Throws InputError with one line naming the file, the key and what is wrong.
Config load_config(const CliOverrides& cli, const Registry& registry);
Config parse_config_text(const std::string& yaml_text, const std::string& origin, const CliOverrides& cli,
                         const Registry& registry);

// A fault whose rank this run does not have cannot be planted: throws InputError naming the fault
// ("config.yaml:3: fault abort on alpha cannot be planted: rank 99 is not in this run of 2 ranks
// (0..1)"). Called on every rank once the world size is known, before the run folder is made.
void check_faults_for_world(const Config& config, int world_size);

}  // namespace shakedown
