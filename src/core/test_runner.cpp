#include "core/test_runner.hpp"

#include "core/clock.hpp"
#include "core/errors.hpp"
#include "core/run_context.hpp"
#include "core/waiver_reasons.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <exception>
#include <thread>

#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

namespace shakedown {
namespace {

// A planted hang: the rank stops answering, as a stuck driver call would; only the watchdog
// (or the launcher killing the job) ends it.
// The planted stop: the whole process stops (SIGSTOP), watchdog and all. With `seconds`, a child
// process continues it after that long (async-signal-safe calls only after fork), as a paused VM
// or an operator's SIGSTOP/SIGCONT would; without, only the launcher ends it.
void stop_this_process(double seconds) {
    pid_t waker = -1;
    if (seconds > 0.0) {
        const pid_t me = ::getpid();
        waker = ::fork();
        if (waker == 0) {
            const auto whole = static_cast<time_t>(seconds);
            timespec span{whole, static_cast<long>((seconds - static_cast<double>(whole)) * 1e9)};
            while (::nanosleep(&span, &span) != 0) {
            }
            ::kill(me, SIGCONT);
            ::_exit(0);
        }
    }
    std::raise(SIGSTOP);
    if (waker > 0) ::waitpid(waker, nullptr, 0);
}

[[noreturn]] void hang_forever() {
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

// Too few ranks for the test (a pair test on one rank) before the test's own reasons.
std::optional<std::string> waiver_of(const Test& test, const RunContext& probe) {
    if (probe.session().world_size() < test.spec().min_ranks)
        return job_too_small_waiver(fmt::format("{} ranks", test.spec().min_ranks),
                                    fmt::format("this run has {}", probe.session().world_size()));
    return test.waiver(probe);
}

}  // namespace

TestResult execute_test(const Test& test, const Session& session, const Config& config,
                        const nlohmann::json& inventory) {
    const FaultSwitches faults(config.faults, test.key(), session.world_rank());
    if (faults.abort()) std::raise(SIGKILL);  // a crashed node: no cleanup, no goodbye

    // Waivers first, with a communicator that has every rank, then split off the runners.
    const RunContext probe(session, config, config.params_for(test), session.world(), inventory, faults);
    const auto waiver = waiver_of(test, probe);
    const Communicator runners = Communicator::split(session.world(), waiver ? MPI_UNDEFINED : 0, session.world_rank());

    const double start = now_utc();
    TestResult result;
    if (waiver) {
        result.waive(*waiver);
    } else {
        const RunContext ctx(session, config, config.params_for(test), runners.get(), inventory, faults);
        if (faults.hang()) hang_forever();
        if (faults.stop()) stop_this_process(faults.stop_s());
        try {
            result = test.run(ctx);
        } catch (const InputError& error) {
            result = TestResult{};
            result.status = Status::error;
            result.reason = error.what();
            result.bad_input = true;
            result.cause = Cause::configuration;
        } catch (const CausedError& error) {
            result = TestResult{};
            result.status = Status::error;
            result.reason = error.what();
            result.cause = error.cause();
        } catch (const std::exception& error) {
            result = TestResult{};
            result.status = Status::error;
            result.reason = error.what();
        }
        apply_declarations(test.spec(), result);
        result.parameters.merge(ctx.params().as_text());
    }
    result.key = std::string(test.key());
    result.start_utc = start;
    result.end_utc = now_utc();
    return result;
}

void check_test_parameters(const Test& test, const TestParams& params, int world_size) {
    try {
        if (test.spec().check_parameters) test.spec().check_parameters(params, world_size);
        test.check_on_node(params);
    } catch (const InputError& error) {
        const std::string message = error.what();
        const std::string prefix = std::string(test.key()) + ": ";
        if (message.starts_with(prefix)) throw;
        throw InputError(prefix + message);
    }
}

}  // namespace shakedown
