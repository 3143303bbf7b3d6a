// shakedown-synthetic-run OUT_DIR --ranks N [--ranks-per-node K] [--tests a,b] [--no-gpus]
//   [--slow-node i [--slow-node-link-factor f]] [--slow-link a,b]... [--slow-direction a,b]...
//   [--slow-link-factor f]
//   [--slow-group i,j,.. [--slow-group-factor f]] [--noise s] [--rounds r] [--link-faults-from-round k]
//   [--seed n]
//   [--throttled-gpu node,gpu] [--regressed-node i [--regression-factor f]] [--jobs n]
// Writes a realistic run folder for the analyzer's benchmark (docs/benchmarks.md) and tests.
#include "analysis/load/forked_workers.hpp"
#include "bench/synthetic_run.hpp"
#include "core/clock.hpp"
#include "core/errors.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>
#include <sstream>

int main(int argc, char** argv) {
    namespace bench = shakedown::bench;
    CLI::App app{"Writes a synthetic shakedown run folder (run.json + rank-NNNNN.h5) for benchmarks and tests."};
    std::string out_dir;
    bench::SyntheticRunSpec spec;
    int slow_node = -1;
    int regressed_node = -1;
    std::vector<std::string> slow_links;
    std::vector<std::string> slow_directions;
    std::vector<int> throttled_gpu;
    bool no_gpus = false;
    app.add_option("OUT_DIR", out_dir, "run folder to create (must not exist, or be empty)")->required();
    app.add_option("--ranks", spec.ranks, "number of ranks")->required();
    app.add_option("--ranks-per-node", spec.ranks_per_node, "ranks (and GPUs) per node")->capture_default_str();
    app.add_option("--tests", spec.tests, "comma-separated test keys (default: all but allpairs)")->delimiter(',');
    app.add_flag("--no-gpus", no_gpus, "host-only ranks (run.json gpu null, no GPU telemetry)");
    app.add_option("--slow-node", slow_node,
                   "node index whose throughput halves, latency doubles, links drop to --slow-node-link-factor");
    app.add_option("--slow-node-link-factor", spec.slow_node_link_factor, "bandwidth factor of the slow node's links")
        ->capture_default_str();
    app.add_option("--slow-link", slow_links, "a,b: two node indices whose links drop to --slow-link-factor (repeatable)")
        ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    app.add_option("--slow-direction", slow_directions,
                   "a,b: what node a sends to node b drops to --slow-link-factor, the reverse untouched (repeatable)")
        ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    app.add_option("--slow-link-factor", spec.slow_link_factor, "bandwidth factor of each slow link")->capture_default_str();
    app.add_option("--slow-group", spec.slow_group, "node indices whose links to the other nodes drop to --slow-group-factor")
        ->delimiter(',');
    app.add_option("--slow-group-factor", spec.slow_group_factor, "bandwidth factor of the slow group's cross links")
        ->capture_default_str();
    app.add_option("--noise", spec.noise,
                   "relative spread of each link measurement: a factor uniform in [1 - s, 1 + s], seeded by --seed")
        ->capture_default_str();
    app.add_option("--rounds", spec.rounds, "measurements of each ordered rank pair in the link matrix")->capture_default_str();
    app.add_option("--link-faults-from-round", spec.link_faults_from_round,
                   "the link faults start at this round (0-based): a node or link that degrades during the run")
        ->capture_default_str();
    app.add_option("--throttled-gpu", throttled_gpu, "node,gpu: power-capped during the GEMM tests, GEMM rate x0.65")
        ->delimiter(',')->expected(2);
    app.add_option("--regressed-node", regressed_node, "node index whose throughput drops by --regression-factor");
    app.add_option("--regression-factor", spec.regression_factor, "throughput factor of the regressed node")->capture_default_str();
    app.add_option("--other-driver", spec.other_driver_nodes, "node indices whose GPU driver differs from the others'")
        ->delimiter(',');
    app.add_option("--other-hca-firmware", spec.other_hca_firmware_nodes,
                   "node indices whose HCA firmware differs from the others'")
        ->delimiter(',');
    app.add_option("--samples", spec.sample_rows, "sample rows per test")->capture_default_str();
    app.add_option("--telemetry-hz", spec.telemetry_hz, "telemetry rate of the leaders")->capture_default_str();
    app.add_option("--seed", spec.seed, "random seed")->capture_default_str();
    app.add_option("--run-id", spec.run_id, "run id")->capture_default_str();
    int jobs = shakedown::usable_cores();
    app.add_option("--jobs,-j", jobs, "writer processes (default: the cores this process may use)")->capture_default_str();
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& help) {
        return app.exit(help);
    } catch (const CLI::ParseError& error) {
        std::cerr << "shakedown-synthetic-run: " << error.what() << " (see --help)\n";
        return shakedown::exit_code::bad_input;
    }
    if (slow_node >= 0) spec.slow_node = slow_node;
    if (regressed_node >= 0) spec.regressed_node = regressed_node;
    const auto read_pairs = [](const std::vector<std::string>& texts, const char* option,
                               std::vector<std::pair<int, int>>& pairs) {
        for (const std::string& text : texts) {
            int a = 0;
            int b = 0;
            char comma = 0;
            std::istringstream pair(text);
            if (!(pair >> a >> comma >> b) || comma != ',' || !pair.eof()) {
                std::cerr << "shakedown-synthetic-run: " << option << ": expected two node indices a,b, got '" << text
                          << "'\n";
                return false;
            }
            pairs.emplace_back(a, b);
        }
        return true;
    };
    if (!read_pairs(slow_links, "--slow-link", spec.slow_links) ||
        !read_pairs(slow_directions, "--slow-direction", spec.slow_directions))
        return shakedown::exit_code::bad_input;
    if (throttled_gpu.size() == 2) spec.throttled_gpu = bench::SyntheticRunSpec::ThrottledGpu{throttled_gpu[0], throttled_gpu[1]};
    spec.gpus = !no_gpus;
    if (jobs < 1) {
        std::cerr << "shakedown-synthetic-run: --jobs must be 1 or more (writer processes), got " << jobs << '\n';
        return shakedown::exit_code::bad_input;
    }
    try {
        const shakedown::Stopwatch stopwatch;
        bench::write_synthetic_run(out_dir, spec, jobs);
        std::cout << fmt::format("wrote {} rank files to {} in {:.1f} s\n", spec.ranks, out_dir, stopwatch.seconds());
    } catch (const std::exception& error) {  // InputError or a TraceError from the writer
        std::cerr << "shakedown-synthetic-run: " << error.what() << '\n';
        return shakedown::exit_code::bad_input;
    }
    return shakedown::exit_code::ok;
}
