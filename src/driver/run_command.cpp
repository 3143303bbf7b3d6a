#include "driver/run_command.hpp"

#include "core/driver_result_names.hpp"
#include "core/printable_text.hpp"

#include "core/build_features.hpp"
#include "core/clock.hpp"
#include "core/errors.hpp"
#include "core/gpu_architectures.hpp"
#include "core/gpu_runtime.hpp"
#include "core/registry.hpp"
#include "core/session.hpp"
#include "core/test_runner.hpp"
#include "driver/expected_duration.hpp"
#include "driver/heartbeat.hpp"
#include "driver/mpi_runtime.hpp"
#include "driver/outcome.hpp"
#include "driver/progress.hpp"
#include "driver/progress_keys.hpp"
#include "driver/run_folder.hpp"
#include "driver/run_manifest.hpp"
#include "driver/termination.hpp"
#include "driver/watchdog.hpp"
#include "inventory/inventory.hpp"
#include "placement/gpu_binding.hpp"
#include "telemetry/sampler.hpp"
#include "trace/trace_writer.hpp"

#include <fmt/format.h>

#include <cstring>
#include <memory>
#include <optional>
#include <vector>

namespace shakedown {
namespace {

constexpr const char* profile_file_name = "profile.yaml";

TraceHeader make_header(const Session& session, const RunFolder& folder, double start_utc) {
    TraceHeader header;
    header.shakedown_version = SHAKEDOWN_VERSION;
    header.run_id = folder.run_id;
    header.run_uuid = folder.run_uuid;
    header.rank = session.world_rank();
    header.world_size = session.world_size();
    header.node = session.identity().node_name;
    header.local_rank = session.identity().local_rank;
    header.start_utc = start_utc;
    header.binding = current_rank_binding(session.gpu());
    return header;
}

void record_telemetry(TelemetrySampler* sampler, TraceWriter& trace) {
    if (sampler == nullptr) return;
    for (const auto& [device, samples] : sampler->drain())
        if (!samples.empty()) trace.append_telemetry(device, samples, sampler->attributes_of(device));
    for (const auto& event : sampler->drain_events()) trace.append_event(event);
}

// The stretches the rank's process stood still inside the test, in its result (summed) and as
// one event each: shorter than any deadline, they show only as a slow test otherwise.
void record_freezes(const std::vector<Watchdog::Freeze>& freezes, TestResult& result, TraceWriter& trace, int rank) {
    if (freezes.empty()) return;
    double total = 0.0;
    for (const Watchdog::Freeze& freeze : freezes) {
        total += freeze.seconds;
        trace.append_event({freeze.resumed_utc, Severity::warning,
                            fmt::format("rank {} stood still for {:.1f} s in {} (the whole process: SIGSTOP, a paused "
                                        "VM or swapping)",
                                        rank, freeze.seconds, freeze.test_key)});
    }
    result.parameters[std::string(driver_names::frozen_s)] = fmt::format("{:.3f}", total);
    result.parameters[std::string(driver_names::freezes)] = std::to_string(freezes.size());
}

void record_outcome_event(const TestResult& result, TraceWriter& trace) {
    if (result.status == Status::error)
        trace.append_event({result.end_utc, Severity::error, fmt::format("{}: error: {}", result.key, result.reason)});
    else if (result.status == Status::waived)
        trace.append_event({result.end_utc, Severity::info, fmt::format("{}: waived: {}", result.key, result.reason)});
}

// Collective: whether any rank's `error` is not empty; if so, `error` becomes the lowest such
// rank's on every rank.
bool first_error_of_any_rank(std::string& error, MPI_Comm world) {
    int rank = 0;
    int size = 1;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    const int mine = error.empty() ? size : rank;
    int first = size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, world);
    if (first == size) return false;
    broadcast_text(error, first, world);
    return true;
}

// Collective: a GPU this binary has no code for (neither its machine code nor PTX the driver can
// compile) would error every GPU test with "no kernel image" and get its node drained, for a
// fault of the build. Refused on every rank before anything is written: exit 2.
void refuse_gpu_without_code(const Session& session) {
    std::string refusal;
    const auto built = parse_cuda_architectures(built_cuda_architectures());
    if (const auto device = session.gpu(); device && built) {
        if (const auto capability = gpu_compute_capability(*device)) {
            if (const auto why = gpu_architecture_refusal(*capability, *built))
                refusal = fmt::format("{} (rank {}, GPU {} on {}): rebuild with CMAKE_CUDA_ARCHITECTURES naming {}", *why,
                                      session.world_rank(), *device, session.identity().node_name, *capability);
        }
    }
    if (first_error_of_any_rank(refusal, session.world())) throw InputError(refusal);
}

// Collective: a run that could not start leaves nothing behind. Each rank removes its trace (the
// folder may be local to its node), then rank 0 the run's own files and the folder, which stays
// only when something else was put into it. The reason is extended with what became of it.
void remove_unstarted_run(const RunFolder& folder, const Session& session, std::string& reason) {
    std::error_code ignored;
    std::filesystem::remove(trace_path(folder, session.world_rank()), ignored);
    MPI_Barrier(session.world());
    if (session.world_rank() != 0) return;
    for (const char* name : {run_manifest_file_name, profile_file_name}) std::filesystem::remove(folder.path / name, ignored);
    remove_empty_trace_folders(folder, session.world_size());
    std::error_code error;
    std::filesystem::remove(folder.path, error);
    reason += error ? fmt::format(" (the run did not start; run folder '{}' left in place: {})", folder.path.string(),
                                  error.message())
                    : fmt::format(" (the run did not start; its folder '{}' was removed)", folder.path.string());
}

// Everything after MPI is up; exceptions are turned into exit codes by run_command.
int run_selected_tests(const Config& config, const std::optional<std::string>& profile_yaml,
                       const std::vector<const Test*>& tests, TerminationListener& termination) {
    const double start_utc = now_utc();
    Session session(MPI_COMM_WORLD, visible_gpu_count());
    const bool is_root = session.world_rank() == 0;
    refuse_gpu_without_code(session);
    for (const auto* test : tests) check_test_parameters(*test, config.params_for(*test), session.world_size());
    check_faults_for_world(config, session.world_size());
    const RunFolder folder = create_run_folder(config, session.world());
    const nlohmann::json inventory = collect_inventory();
    const std::string gpu_uuid = placement::gpu_uuid_for(inventory, session.gpu());
    session.record_gpu_identity(gpu_uuid);  // one rank per physical GPU measures it

    std::vector<std::string> keys;
    for (const auto* test : tests) keys.emplace_back(test->key());
    RunManifest manifest = build_manifest(session, config, folder, keys, inventory.value("versions", nlohmann::json::object()),
                                          start_utc, gpu_uuid, placement::gpu_name_for(inventory, session.gpu()));
    if (profile_yaml) manifest.profile = profile_file_name;
    // The start: profile.yaml and run.json on rank 0, a trace on every rank. Where one of them
    // cannot be written (a full disk), every rank ends here with the reason, and what was made
    // goes away: a run folder that holds no test result is no run.
    std::unique_ptr<TraceWriter> started;
    std::string start_error;
    try {
        if (is_root) {
            if (profile_yaml) write_text_atomically(folder.path / profile_file_name, *profile_yaml);
            write_run_manifest(folder, manifest);
        }
        started = std::make_unique<TraceWriter>(trace_path(folder, session.world_rank()),
                                                make_header(session, folder, start_utc), config.resolved_yaml(), inventory);
    } catch (const std::exception& error) {
        start_error = error.what();
    }
    if (first_error_of_any_rank(start_error, session.world())) {
        started.reset();
        remove_unstarted_run(folder, session, start_error);
        throw InputError(start_error);
    }
    TraceWriter& trace = *started;
    Progress progress(is_root, tests.size(), config.progress, config.still_running_interval_s);
    Heartbeat heartbeat(is_root, folder.path / progress_keys::file_name,
                        {manifest.run_id, manifest.run_uuid, manifest.suite, keys, start_utc}, progress);
    const auto on_termination = termination.arm([&](int signal) {
        const double now = now_utc();
        const ActivitySnapshot stood = session.activity().snapshot();
        heartbeat.abort(fmt::format("ended by signal {} ({}) in {}", signal, strsignal(signal), stood.describe()));
        // run.json before the trace and unsynced, as progress.json is: the trace's abort may wait
        // for its lock, and mpirun sends SIGKILL one second after the SIGTERM it passes on.
        if (is_root) {  // run.json says the run ended early, as progress.json does
            manifest.end_utc = now;
            manifest.status = "aborted";
            try {
                write_run_manifest(folder, manifest, Flush::to_page_cache);
            } catch (const std::exception&) {  // the traces still say why; nothing may throw out of the listener
            }
        }
        trace.try_abort({now, Severity::error,
                         fmt::format("rank {} ended by signal {} ({}) in {}", session.world_rank(), signal,
                                     strsignal(signal), stood.describe())},
                        now, std::chrono::seconds(2), StalledAt{stood, stalled_by_signal});
    });
    std::optional<TelemetrySampler> sampler;
    if (config.telemetry_enabled && session.identity().is_leader())
        sampler.emplace(config.telemetry_rate_hz, default_telemetry_sources(config.infiniband_sysfs_root, config.passive_health));

    Watchdog watchdog(session.world_rank(), session.identity().node_name, config.watchdog_grace_s,
                      config.freeze_report_s, session.activity(),
                      [&trace, &heartbeat](const std::string& message, const ActivitySnapshot& stood, double late_s) {
                          const double now = now_utc();
                          heartbeat.abort(message);
                          trace.try_abort({now, Severity::error, message}, now, std::chrono::seconds(2),
                                          StalledAt{stood, stalled_by_watchdog, late_s});
                      });

    progress.message(fmt::format("shakedown {}: {} test(s) on {} rank(s), {} node(s); run folder {}", SHAKEDOWN_VERSION,
                                 tests.size(), session.world_size(), session.identity().node_count, folder.path.string()));
    for (const std::string& line : config.unplanted_faults) progress.message(line);
    bool any_failed = false;
    bool any_bad_input = false;
    for (std::size_t index = 0; index < tests.size(); ++index) {
        const Test& test = *tests[index];
        const std::string key(test.key());
        progress.started(index, key);
        heartbeat.test_started(index, key, expected_duration(key, config.params_for(test)));
        watchdog.arm(key, config.deadline_for(test));
        session.activity().enter_test(key);
        MPI_Barrier(session.world());
        TestResult result = execute_test(test, session, config, inventory);
        session.activity().set_phase("gathering every rank's outcome");
        const TestOutcome outcome = gather_outcome(result, session.world());
        watchdog.disarm();
        session.activity().leave_test();
        record_freezes(watchdog.take_freezes(), result, trace, session.world_rank());

        trace.write_test(result);
        record_outcome_event(result, trace);
        record_telemetry(sampler ? &*sampler : nullptr, trace);
        any_failed = any_failed || outcome.worst == Status::fail || outcome.worst == Status::error;
        any_bad_input = any_bad_input || outcome.bad_input;
        heartbeat.test_finished(index, key, outcome.worst, outcome.seconds);  // before the line: no redraw after it
        progress.finished(index, key, outcome);
    }
    if (sampler) {  // the end-of-run readings (port counters read afresh) go into the trace too
        sampler->stop();
        record_telemetry(&*sampler, trace);
        sampler.reset();
    }
    const double end_utc = now_utc();
    trace.finish(TraceStatus::complete, end_utc);
    MPI_Barrier(session.world());
    if (is_root) {
        manifest.end_utc = end_utc;
        manifest.status = "complete";
        write_run_manifest(folder, manifest);
        heartbeat.finish();
        progress.message(fmt::format("run folder: {}", folder.path.string()));
    }
    // Input only a node could judge impossible still makes the run an input error (exit 2), after
    // every test has run and the run folder records it.
    if (any_bad_input) return exit_code::bad_input;
    return any_failed ? exit_code::failures : exit_code::ok;
}

}  // namespace

int run_command(const Config& config, const std::optional<std::string>& profile_yaml, int& argc, char**& argv) {
    // Names were validated before MPI started (load_config); select cannot throw here.
    const auto tests = Registry::instance().select(config.suite, config.tests, config.exclude);
    TerminationListener termination;  // before MPI starts its threads
    MpiRuntime mpi(argc, argv);
    const RegisteredRuntimes runtimes;  // after MPI starts, stopped before it ends
    int code = exit_code::ok;
    try {
        code = run_selected_tests(config, profile_yaml, tests, termination);
    } catch (const InputError& error) {
        // Every rank reaches the same verdict (e.g. the run folder exists): one line, from rank 0.
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0) fmt::print(stderr, "shakedown: {}\n", escape_control(error.what()));
        code = exit_code::bad_input;
    } catch (const std::exception& error) {
        // Not the user's fault and possibly on one rank only: the job cannot continue safely.
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        fmt::print(stderr, "shakedown: rank {}: {}\n", rank, escape_control(error.what()));
        std::fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, exit_code::incomplete);
    }
    return code;
}

}  // namespace shakedown
