#include "analysis/load/run_loader.hpp"

#include "analysis/load/forked_workers.hpp"
#include "analysis/load/rank_codec.hpp"
#include "analysis/load/run_manifest.hpp"
#include "core/printable_text.hpp"
#include "core/registry.hpp"
#include "trace/trace_reader.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

namespace shakedown::analysis {
namespace {

std::string rank_label(const RankRecord& record) {
    return record.node.empty() ? fmt::format("rank {}", record.rank)
                               : fmt::format("rank {} ({})", record.rank, record.node);
}

void mark(RankRecord& record, RankProblem problem, std::string_view detail) {
    record.problem = problem;
    record.problem_text = fmt::format("{}: {}", rank_label(record), detail);
}

// Events are read only for the rare aborted rank: the watchdog's last event says why.
std::string last_event_text(const std::filesystem::path& path, TraceReadOptions options) {
    options.events = true;
    try {
        const Trace trace = read_trace(path, options);
        return trace.events.empty() ? std::string("no event recorded") : trace.events.back().text;
    } catch (const std::exception& failure) {
        return std::string("events unreadable: ") + failure.what();
    }
}

// A rate or a duration below zero is not a measurement.
bool never_negative(std::string_view unit) {
    static const std::set<std::string_view> durations = {"s", "ms", "us", "ns"};
    return unit.ends_with("/s") || unit == "IOPS" || durations.contains(unit);
}

// The driver records every metric with its declaration's unit and direction (core/test_spec.cpp,
// apply_declarations). A trace that says otherwise was edited: with `better` turned to lower a
// DGEMM at 0.09 of nominal passed, and a negative triad in "GB/S" escaped the sign check. Metrics of
// a test this binary does not declare are left to the rules (a trace of another version). A name
// the test does not declare is forged too (a renamed failing figure would otherwise leave the test
// with nothing to judge, and PASS), where the trace has this binary's schema: a trace of an older
// schema may hold a figure since renamed, and is left to the rules.
std::optional<std::string> unlike_declaration(const std::string& test_key, const Metric& metric, bool same_schema) {
    const MetricSpec* declared = Registry::instance().declaration(test_key, metric.name);
    if (declared == nullptr) {
        if (!same_schema || Registry::instance().find(test_key) == nullptr) return std::nullopt;
        return fmt::format("{} records {}, which {} does not declare", test_key, escape_control(metric.name), test_key);
    }
    if (metric.unit != declared->unit)
        return fmt::format("{} is recorded in '{}', but {} declares it in '{}'", metric.name, escape_control(metric.unit),
                           test_key, declared->unit);
    if (metric.better != declared->better)
        return fmt::format("{} is recorded as {} is better, but {} declares {}", metric.name, to_string(metric.better),
                           test_key, to_string(declared->better));
    return std::nullopt;
}

// Figures no measurement gives: a negative rate or time, the same metric twice in one test
// (which of the two would be judged?). The reader checks a trace's form, not its sense: such a
// trace was damaged or forged, so the rank is corrupt, not judged on them. A NaN or infinite
// figure is not among them: a test records NaN when its measurement produced no number (an
// empty sample set, stats/summary.hpp), and the threshold rule FAILs it as such.
std::optional<std::string> implausible_figure(const Trace& trace) {
    const bool same_schema = trace.header.schema_version == trace_schema_version;
    for (const TestResult& test : trace.tests) {
        std::set<std::string_view> seen;
        for (const Metric& metric : test.metrics) {
            if (!seen.insert(metric.name).second)
                return fmt::format("test {} records metric {} twice", test.key, metric.name);
            if (metric.value < 0 && never_negative(metric.unit))
                return fmt::format("{} = {} {} (a rate or a time is never negative)", metric.name, metric.value,
                                   metric.unit);
            if (const auto mismatch = unlike_declaration(test.key, metric, same_schema)) return *mismatch;
        }
    }
    return std::nullopt;
}

// Why a trace whose header is readable is not this run's rank `record.rank`: another rank, a run of
// another name or id (a folder name is no identity: two runs may share it), another world size, or
// another node or local rank than run.json lists for it (`listed`, null when run.json lists none).
std::optional<std::string> foreign_because(const RankRecord& record, const TraceHeader& header, const RunManifest& manifest,
                                           const ManifestRank* listed) {
    const std::string file = record.trace_path.filename().string();
    if (header.rank != record.rank || header.run_id != manifest.run_id)
        return fmt::format("{} belongs to rank {} of run '{}', not to this run", file, header.rank, header.run_id);
    // A run.json before schema 1.1 records no run_uuid: its traces are judged by name as before.
    if (!manifest.run_uuid.empty() && header.run_uuid != manifest.run_uuid)
        return fmt::format("{} belongs to another run named '{}' (run_uuid {}), not to this one (run_uuid {})", file,
                           header.run_id, header.run_uuid.empty() ? "not recorded" : header.run_uuid, manifest.run_uuid);
    if (header.world_size != manifest.world_size)
        return fmt::format("{} was written by a run of {} rank(s); run.json has {}", file, header.world_size,
                           manifest.world_size);
    if (listed != nullptr && (header.node != listed->node || header.local_rank != listed->local_rank))
        return fmt::format("{} was written on node '{}' as local rank {}; run.json has node '{}', local rank {}", file,
                           header.node, header.local_rank, listed->node, listed->local_rank);
    return std::nullopt;
}

// A node leader's trace with its /inventory (RunLoadOptions::leader_inventory). A damaged
// inventory must not cost the rank its metrics, which were judged before the inventory was read
// here: that trace is read again without it, and the report finds no inventory for the node.
std::optional<Trace> read_with_inventory(const RankRecord& record, TraceReadOptions read_options) {
    read_options.inventory = true;
    try {
        return read_trace(record.trace_path, read_options);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// The read options keep each read to the root attributes, the test groups and their metric tables.
void read_rank(RankRecord& record, const RunManifest& manifest, const ManifestRank* listed,
               const TraceReadOptions& read_options, bool leader_inventory) {
    std::error_code error;
    if (!std::filesystem::exists(record.trace_path, error)) {
        mark(record, RankProblem::missing, fmt::format("trace missing ({})", record.trace_path.filename().string()));
        return;
    }
    try {
        if (leader_inventory && !read_options.inventory && listed != nullptr && listed->local_rank == 0)
            record.trace = read_with_inventory(record, read_options);
        record.inventory_read = read_options.inventory || record.trace.has_value();
        if (!record.trace) record.trace = read_trace(record.trace_path, read_options);
    } catch (const TraceError& failure) {
        mark(record, RankProblem::unreadable, fmt::format("trace truncated or not HDF5: {}", failure.what()));
        return;
    } catch (const std::exception& failure) {  // the reader promises TraceError; never let a file crash us
        mark(record, RankProblem::unreadable, fmt::format("trace unreadable: {}", failure.what()));
        return;
    }
    const TraceHeader& header = record.trace->header;
    if (record.node.empty()) {
        record.node = header.node;
        record.local_rank = header.local_rank;
    }
    if (const std::optional<std::string> foreign = foreign_because(record, header, manifest, listed)) {
        mark(record, RankProblem::foreign, *foreign);
        record.trace.reset();
        record.inventory_read = false;
        return;
    }
    if (const std::optional<std::string> problem = implausible_figure(*record.trace)) {
        mark(record, RankProblem::unreadable,
             fmt::format("corrupt data in {}: {}", record.trace_path.filename().string(), *problem));
        record.trace.reset();
        record.inventory_read = false;
        return;
    }
    if (record.trace->status == TraceStatus::running)
        mark(record, RankProblem::running, "still running: no finish recorded (the rank died, or the run goes on)");
    else if (record.trace->status == TraceStatus::aborted)
        mark(record, RankProblem::aborted, fmt::format("aborted: {}", last_event_text(record.trace_path, read_options)));
}

// Reads every rank's trace into its record: here with one job, else in `jobs` forked reader
// processes (load/forked_workers.hpp) whose records come back through rank_codec, each into its
// rank's place, so the run loaded equals the one read here. A reader process that dies on a file
// (HDF5 crashing on a hostile one) costs that rank only: it is unreadable, the others are read.
void read_ranks(LoadedRun& run, const std::map<int, const ManifestRank*>& listed, const TraceReadOptions& read_options,
                const RunLoadOptions& options) {
    auto read_one = [&](RankRecord& record) {
        const auto entry = listed.find(record.rank);
        read_rank(record, run.manifest, entry != listed.end() ? entry->second : nullptr, read_options,
                  options.leader_inventory);
    };
    const int jobs = options.jobs;
    if (jobs <= 1) {
        for (RankRecord& record : run.ranks) read_one(record);
        return;
    }
    run_forked({.count = run.ranks.size(),
                .jobs = jobs,
                .work =
                    [&](std::size_t index) {
                        RankRecord record = run.ranks[index];
                        read_one(record);
                        return encode_rank_read(record);
                    },
                .take = [&](std::size_t index,
                            std::span<const std::uint8_t> bytes) { decode_rank_read(bytes, run.ranks[index]); },
                .lost =
                    [&](std::size_t index, const std::string& why) {
                        RankRecord& record = run.ranks[index];
                        mark(record, RankProblem::unreadable,
                             fmt::format("reading {} failed: {}", record.trace_path.filename().string(), why));
                    }});
}

// "cancelled: ..." when every rank that did not finish recorded that a signal ended it, naming
// the first one's line ("rank 0 ended by signal 15 (Terminated) in dgemm_fp64").
std::optional<std::string> cancellation_of(const LoadedRun& run) {
    int signalled = 0;
    std::string first;
    for (const RankRecord& record : run.ranks) {
        if (record.problem == RankProblem::none) continue;
        const bool by_signal = record.problem == RankProblem::aborted && record.trace && record.trace->stalled &&
                               record.trace->stalled->noticed_by == stalled_by_signal;
        if (!by_signal) return std::nullopt;  // a rank missing, still running or stopped by its watchdog: not only a cancel
        if (signalled++ == 0) {
            constexpr std::string_view marker = "aborted: ";  // read_rank's problem text: the rank's last event after it
            const std::size_t at = record.problem_text.find(marker);
            first = at == std::string::npos ? record.problem_text : record.problem_text.substr(at + marker.size());
        }
    }
    if (signalled == 0) return std::nullopt;
    return fmt::format("cancelled: {} of {} rank(s) ended by a signal they recorded ({}): scancel, the job's time "
                       "limit or the job script's trap; the tests that finished are judged, nothing drains for what did "
                       "not run",
                       signalled, run.ranks.size(), first);
}

}  // namespace

int default_load_jobs() { return usable_cores(); }

std::string_view to_string(RankProblem problem) {
    switch (problem) {
        case RankProblem::none: return "none";
        case RankProblem::missing: return "missing";
        case RankProblem::unreadable: return "unreadable";
        case RankProblem::running: return "running";
        case RankProblem::aborted: return "aborted";
        case RankProblem::foreign: return "foreign";
    }
    return "unknown";
}

LoadedRun load_run(const std::filesystem::path& run_dir, const RunLoadOptions& options) {
    LoadedRun run;
    run.dir = run_dir;
    run.manifest = read_run_manifest(run_dir);
    const RunManifest& manifest = run.manifest;

    if (manifest.status == "aborted")
        run.run_problems.push_back("run.json: status is aborted: the run ended before its last test");
    else if (manifest.status != "complete")
        run.run_problems.push_back(fmt::format("run.json: status is {}: the driver did not record a finished run",
                                               manifest.status));
    std::map<int, const ManifestRank*> listed;
    for (const ManifestRank& rank : manifest.ranks)
        if (!listed.emplace(rank.rank, &rank).second)
            run.run_problems.push_back(fmt::format("run.json: rank {} is listed twice", rank.rank));

    const TraceReadOptions read_options{
        .samples = false, .telemetry = false, .inventory = options.inventory, .config = false, .events = false};
    run.ranks.resize(static_cast<std::size_t>(manifest.world_size));
    for (int rank = 0; rank < manifest.world_size; ++rank) {
        RankRecord& record = run.ranks[static_cast<std::size_t>(rank)];
        record.rank = rank;
        const ManifestRank* entry_of_rank = nullptr;
        if (auto entry = listed.find(rank); entry != listed.end()) {
            entry_of_rank = entry->second;
            record.node = entry->second->node;
            record.local_rank = entry->second->local_rank;
            record.gpu = entry->second->gpu;
            record.gpu_uuid = entry->second->gpu_uuid;
            record.gpu_name = entry->second->gpu_name;
            record.trace_path = run_dir / entry->second->trace_file;
        } else {
            // A rank run.json does not list: where the driver places traces (run.json 1.2), else
            // where a run before 1.2 placed them (flat, in RUN/ itself).
            record.trace_path = run_dir / trace_relative_path(rank);
            if (std::error_code unused; !std::filesystem::exists(record.trace_path, unused))
                record.trace_path = run_dir / default_trace_file_name(rank);
        }
    }
    read_ranks(run, listed, read_options, options);
    run.cancelled = cancellation_of(run);
    if (run.cancelled) run.run_problems.insert(run.run_problems.begin(), *run.cancelled);
    return run;
}

}  // namespace shakedown::analysis
