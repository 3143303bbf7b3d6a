// shakedown-synthetic-run OUT_DIR --ranks N [--ranks-per-node K] [--tests a,b] [--slow-node i]
// Writes a realistic run folder for the analyzer's benchmark (docs/benchmarks.md) and tests.
#include "bench/synthetic_run.hpp"
#include "core/clock.hpp"
#include "core/errors.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

int main(int argc, char** argv) {
    namespace bench = shakedown::bench;
    CLI::App app{"Writes a synthetic shakedown run folder (run.json + rank-NNNNN.h5) for benchmarks and tests."};
    std::string out_dir;
    bench::SyntheticRunSpec spec;
    int slow_node = -1;
    app.add_option("OUT_DIR", out_dir, "run folder to create (must not exist, or be empty)")->required();
    app.add_option("--ranks", spec.ranks, "number of ranks")->required();
    app.add_option("--ranks-per-node", spec.ranks_per_node, "ranks (and GPUs) per node")->capture_default_str();
    app.add_option("--tests", spec.tests, "comma-separated test keys (default: all)")->delimiter(',');
    app.add_option("--slow-node", slow_node, "node index whose throughput halves and latency doubles");
    app.add_option("--samples", spec.sample_rows, "sample rows per test")->capture_default_str();
    app.add_option("--telemetry-seconds", spec.telemetry_seconds, "telemetry per device on leaders")->capture_default_str();
    app.add_option("--seed", spec.seed, "random seed")->capture_default_str();
    app.add_option("--run-id", spec.run_id, "run id")->capture_default_str();
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& help) {
        return app.exit(help);
    } catch (const CLI::ParseError& error) {
        std::cerr << "shakedown-synthetic-run: " << error.what() << " (see --help)\n";
        return shakedown::exit_code::bad_input;
    }
    if (slow_node >= 0) spec.slow_node = slow_node;
    try {
        const shakedown::Stopwatch stopwatch;
        bench::write_synthetic_run(out_dir, spec);
        std::cout << fmt::format("wrote {} rank files to {} in {:.1f} s\n", spec.ranks, out_dir, stopwatch.seconds());
    } catch (const std::exception& error) {  // InputError or a TraceError from the writer
        std::cerr << "shakedown-synthetic-run: " << error.what() << '\n';
        return shakedown::exit_code::bad_input;
    }
    return shakedown::exit_code::ok;
}
