// shakedown-schedule --run DIR[,DIR...] --nodes N[,N...] --gpus-per-node G [--check DIR]... [--flagged-nodes F]
//   [--peers K] [--nccl-latency-us L] [--nccl-busbw-gbs B]
// For N nodes of G GPUs, the rounds, messages, bytes and estimated wall time of each suite's
// communication tests (bench/schedule_model.hpp), the per-round costs read from a real run folder
// (each test's first start to last end in the rank traces). --check DIR: the same estimate for
// that run folder's own layout beside what it measured, and the error.
#include "bench/schedule_model.hpp"
#include "core/errors.hpp"
#include "core/registry.hpp"
#include "trace/run_manifest.hpp"
#include "trace/trace_reader.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <set>

namespace fs = std::filesystem;
using namespace shakedown;
using bench::Estimate;
using bench::Layout;
using bench::Measured;

namespace {

constexpr long most_ranks = 10'000'000;  // beyond it the counts are no plan anyone runs

struct RunTimes {
    Layout layout;
    std::map<std::string, Measured> tests;
};

RunTimes read_run(const fs::path& dir) {
    std::ifstream in(dir / "run.json");
    if (!in) throw InputError(fmt::format("{}: no run.json (not a run folder)", dir.string()));
    nlohmann::json document;
    try {
        document = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw InputError(fmt::format("{}/run.json: {}", dir.string(), e.what()));
    }
    const RunManifest manifest = parse_run_manifest(document, dir.string() + "/");
    RunTimes run;
    std::set<std::string> nodes;
    std::map<std::string, std::pair<double, double>> spans;  // first start, last end
    const TraceReadOptions only_results{false, false, false, false, false};
    for (int rank = 0; rank < manifest.world_size; ++rank) {
        const Trace trace = read_trace(dir / default_trace_file_name(rank), only_results);
        nodes.insert(trace.header.node);
        for (const TestResult& test : trace.tests) {
            if (test.status == Status::waived || test.end_utc <= 0.0) continue;
            auto [span, fresh] = spans.try_emplace(test.key, test.start_utc, test.end_utc);
            span->second.first = std::min(span->second.first, test.start_utc);
            span->second.second = std::max(span->second.second, test.end_utc);
            if (fresh) run.tests[test.key].parameters = test.parameters;
        }
    }
    run.layout = Layout{static_cast<long>(std::max<std::size_t>(nodes.size(), 1)),
                        std::max<long>(1, manifest.world_size / static_cast<long>(std::max<std::size_t>(nodes.size(), 1)))};
    for (auto& [key, measured] : run.tests) {
        measured.test = key;
        measured.seconds = spans[key].second - spans[key].first;
        measured.layout = run.layout;
    }
    return run;
}

// Each test's round from several reference runs: the run whose cost per round is the median (a
// shared machine's rounds swing with its load).
RunTimes median_rounds(const std::vector<RunTimes>& runs) {
    RunTimes merged = runs.front();
    merged.tests.clear();
    std::map<std::string, std::vector<std::pair<double, const Measured*>>> per_round;
    for (const RunTimes& run : runs)
        for (const auto& [key, measured] : run.tests) {
            const Estimate own = key == "allpairs"   ? bench::allpairs_estimate(&measured, measured.layout)
                                 : key == "congestion" ? bench::congestion_estimate(&measured, measured.layout)
                                                       : bench::pair_rounds_estimate(key, &measured, measured.layout);
            per_round[key].emplace_back(measured.seconds / std::max(1.0, own.rounds), &measured);
        }
    for (auto& [key, rounds] : per_round) {
        std::sort(rounds.begin(), rounds.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        merged.tests[key] = *rounds[(rounds.size() - 1) / 2].second;
    }
    return merged;
}

const Measured* find(const RunTimes& run, const std::string& key) {
    const auto found = run.tests.find(key);
    return found == run.tests.end() ? nullptr : &found->second;
}

std::vector<Estimate> estimates(const RunTimes& ref, const Layout& at, const bench::NcclAssumptions& nccl) {
    return {bench::allpairs_estimate(find(ref, "allpairs"), at),
            bench::pair_rounds_estimate("mpi_pingpong", find(ref, "mpi_pingpong"), at),
            bench::pair_rounds_estimate("p2p", find(ref, "p2p"), at),
            bench::congestion_estimate(find(ref, "congestion"), at),
            bench::nccl_estimate(at, nccl)};
}

std::string count(const std::optional<double>& value) {
    if (!value) return "-";
    return *value < 1e6 ? fmt::format("{:.0f}", *value) : fmt::format("{:.3g}", *value);
}

std::string bytes(const std::optional<double>& value) {
    if (!value) return "-";
    const char* units[] = {"B", "KB", "MB", "GB", "TB", "PB"};
    double v = *value;
    int u = 0;
    while (v >= 1000 && u < 5) v /= 1000, ++u;
    return fmt::format("{:.3g} {}", v, units[u]);
}

std::string duration(const std::optional<double>& seconds) {
    if (!seconds) return "-";
    if (*seconds < 120) return fmt::format("{:.2f} s", *seconds);
    if (*seconds < 7200) return fmt::format("{:.1f} min", *seconds / 60);
    return fmt::format("{:.1f} h", *seconds / 3600);
}

bool in_suite(const std::string& key, const std::string& suite) {
    const Test* test = Registry::instance().find(key);
    if (test == nullptr) return false;
    const auto& suites = test->suites();
    return std::find(suites.begin(), suites.end(), suite) != suites.end();
}

void print_plan(const RunTimes& ref, const Layout& at, long flagged, long peers, const bench::NcclAssumptions& nccl) {
    std::cout << fmt::format("{} nodes x {} GPUs = {} ranks\n", at.nodes, at.gpus_per_node, at.ranks());
    std::cout << fmt::format("  {:<44} {:>10} {:>10} {:>10} {:>10}  {}\n", "test", "rounds", "messages", "bytes", "time", "basis");
    const auto all = estimates(ref, at, nccl);
    const auto confirm = bench::confirmation_estimate(find(ref, "allpairs"), at, flagged, peers);
    // The node-level link matrix alone: one rank per node, N-1 rounds (what fits where every rank cannot).
    Estimate leaders = bench::allpairs_estimate(find(ref, "allpairs"), Layout{at.nodes, 1});
    leaders.test = "allpairs, one rank per node (not a suite)";
    for (const Estimate& e : all)
        std::cout << fmt::format("  {:<44} {:>10} {:>10} {:>10} {:>10}  {}\n", e.test, count(e.rounds), count(e.messages),
                                 bytes(e.bytes), duration(e.seconds), e.basis);
    std::cout << fmt::format("  {:<44} {:>10} {:>10} {:>10} {:>10}  {}\n", leaders.test, count(leaders.rounds),
                             count(leaders.messages), bytes(leaders.bytes), duration(leaders.seconds), leaders.basis);
    std::cout << fmt::format("  {:<44} {:>10} {:>10} {:>10} {:>10}  {} flagged node(s) and {} peers each\n", confirm.test,
                             count(confirm.rounds), count(confirm.messages), bytes(confirm.bytes), duration(confirm.seconds),
                             flagged, peers);
    for (const std::string suite : {"quick", "full", "pairwise"}) {
        double total = 0.0;
        std::vector<std::string> unmeasured;
        for (const Estimate& e : all) {
            if (!in_suite(e.test, suite)) continue;
            if (e.seconds) total += *e.seconds;
            else unmeasured.push_back(e.test);
        }
        std::cout << fmt::format("  suite {:<8} communication tests {}{}\n", suite, duration(total),
                                 unmeasured.empty() ? "" : fmt::format(" (without {}: not in the run folder)", fmt::join(unmeasured, ", ")));
    }
}

// The estimate for `check`'s own layout from `ref`'s rounds, beside what `check` measured.
void print_check(const RunTimes& ref, const fs::path& dir, const bench::NcclAssumptions& nccl) {
    const RunTimes check = read_run(dir);
    std::cout << fmt::format("check {} ({} node(s) x {} ranks)\n", dir.string(), check.layout.nodes, check.layout.gpus_per_node);
    for (const Estimate& e : estimates(ref, check.layout, nccl)) {
        const Measured* measured = find(check, e.test);
        if (measured == nullptr || !e.seconds) continue;
        std::cout << fmt::format("  {:<14} estimated {:>9}  measured {:>9}  error {:+.0f} %\n", e.test, duration(e.seconds),
                                 duration(measured->seconds), 100.0 * (*e.seconds - measured->seconds) / measured->seconds);
    }
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Rounds, messages, bytes and estimated wall time of each suite's communication tests at N nodes x G GPUs."};
    std::vector<std::string> run_dirs;
    std::vector<long> node_counts;
    long gpus = 8;
    std::vector<std::string> checks;
    long flagged = -1;
    long peers = 3;
    bench::NcclAssumptions nccl;
    app.add_option("--run", run_dirs, "real run folders (comma list): each test's measured time per round, the median over them")
        ->required()->delimiter(',');
    app.add_option("--nodes", node_counts, "node counts to plan for (comma list)")->delimiter(',');
    app.add_option("--gpus-per-node", gpus, "ranks (GPUs) per node")->capture_default_str()->check(CLI::Range(1L, 1024L));
    app.add_option("--check", checks, "run folders to compare the estimate with (their own layout)")->delimiter(',');
    app.add_option("--flagged-nodes", flagged, "nodes whose FAILs await confirmation (default: 1 % of the nodes, at least 1)")
        ->check(CLI::Range(0L, most_ranks));
    app.add_option("--peers", peers, "peers each flagged node's evidence rests on")->capture_default_str()->check(CLI::Range(0L, 1000L));
    app.add_option("--nccl-latency-us", nccl.latency_us, "assumed NCCL launch latency")->capture_default_str()->check(CLI::PositiveNumber);
    app.add_option("--nccl-busbw-gbs", nccl.busbw_gbs, "assumed NCCL bus bandwidth")->capture_default_str()->check(CLI::PositiveNumber);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& help) {
        return app.exit(help);
    } catch (const CLI::ParseError& error) {
        std::cerr << "shakedown-schedule: " << error.what() << " (see --help)\n";
        return exit_code::bad_input;
    }
    try {
        for (const long nodes : node_counts)
            if (nodes < 1 || nodes > most_ranks / gpus)
                throw InputError(fmt::format("--nodes {} x --gpus-per-node {}: the simulator holds 1 to {} ranks", nodes, gpus,
                                             most_ranks));
        std::vector<RunTimes> runs;
        for (const std::string& dir : run_dirs) runs.push_back(read_run(dir));
        const RunTimes ref = median_rounds(runs);
        std::cout << fmt::format("per-round costs: the median over {}\n", fmt::join(run_dirs, ", "));
        for (const long nodes : node_counts) {
            const long flagged_here = flagged >= 0 ? flagged : std::max(1L, static_cast<long>(std::ceil(nodes * 0.01)));
            print_plan(ref, Layout{nodes, gpus}, flagged_here, peers, nccl);
        }
        for (const std::string& check : checks) print_check(ref, check, nccl);
    } catch (const InputError& error) {
        std::cerr << "shakedown-schedule: " << error.what() << "\n";
        return exit_code::bad_input;
    } catch (const TraceError& error) {
        std::cerr << "shakedown-schedule: " << error.what() << "\n";
        return exit_code::bad_input;
    }
    return 0;
}
