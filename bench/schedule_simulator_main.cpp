// shakedown-schedule --run DIR[,DIR...] --nodes N[,N...] --gpus-per-node G [--check DIR]... [--flagged-nodes F]
//   [--peers K] [--pairs-per-node K] [--nccl-latency-us L] [--nccl-busbw-gbs B]
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
#include <fmt/ranges.h>
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
    for (const ManifestRank& rank : manifest.ranks) {  // each trace where run.json says (traces/<block>/ since 1.2)
        const Trace trace = read_trace(dir / rank.trace_file, only_results);
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
            const Estimate own = key == "allpairs"   ? bench::allpairs_estimate(&measured, measured.layout, bench::plan_of(&measured))
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

// `plan`: allpairs' scope and sample (the other tests run as they do at any scope).
std::vector<Estimate> estimates(const RunTimes& ref, const Layout& at, const bench::NcclAssumptions& nccl,
                                const bench::AllpairsPlan& plan = {}) {
    return {bench::allpairs_estimate(find(ref, "allpairs"), at, plan),
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

std::string row(const Estimate& e, const std::string& basis) {
    return fmt::format("  {:<52} {:>10} {:>10} {:>10} {:>10}  {}\n", e.test, count(e.rounds), count(e.messages), bytes(e.bytes),
                       duration(e.seconds), basis);
}

double seconds_or_zero(const Estimate& e) { return e.seconds.value_or(0.0); }

void print_plan(const RunTimes& ref, const Layout& at, long flagged, long peers, std::optional<long> sampled,
                const bench::NcclAssumptions& nccl) {
    using bench::AllpairsScope;
    std::cout << fmt::format("{} nodes x {} GPUs = {} ranks\n", at.nodes, at.gpus_per_node, at.ranks());
    std::cout << fmt::format("  {:<52} {:>10} {:>10} {:>10} {:>10}  {}\n", "test", "rounds", "messages", "bytes", "time", "basis");
    const Measured* allpairs = find(ref, "allpairs");
    const auto all = estimates(ref, at, nccl);
    const Estimate by_node = bench::allpairs_estimate(allpairs, at, {AllpairsScope::nodes, std::nullopt});
    // The job's confirmation step reuses the run's configuration: the run's scope. Every rank on
    // the flagged nodes is the fuller look the node-level matrix may call for.
    const Estimate confirm_ranks = bench::confirmation_estimate(allpairs, at, flagged, peers, {AllpairsScope::ranks, std::nullopt});
    const Estimate confirm_nodes = bench::confirmation_estimate(allpairs, at, flagged, peers, {AllpairsScope::nodes, std::nullopt});
    for (const Estimate& e : all) std::cout << row(e, e.basis);
    std::cout << row(by_node, by_node.basis);
    const std::string flagged_text = fmt::format("{} flagged node(s) and {} peers each", flagged, peers);
    std::cout << row(confirm_ranks, flagged_text);
    std::cout << row(confirm_nodes, flagged_text);
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
    // pairs_per_node K: the sampled node matrix, and its confirmation with the same configuration.
    std::optional<Estimate> by_sample, confirm_sample;
    if (sampled) {
        by_sample = bench::allpairs_estimate(allpairs, at, {AllpairsScope::nodes, sampled});
        confirm_sample = bench::confirmation_estimate(allpairs, at, flagged, peers, {AllpairsScope::nodes, sampled});
        std::cout << row(*by_sample, by_sample->basis) << row(*confirm_sample, flagged_text);
    }
    if (!all.front().seconds) return;
    if (by_sample)
        std::cout << fmt::format("  sampled link matrix and its confirmation: scope nodes, {} peers: {} + {} = {} (every rank "
                                 "of the flagged nodes instead: {} + {} = {})\n",
                                 *sampled, duration(by_sample->seconds), duration(confirm_sample->seconds),
                                 duration(seconds_or_zero(*by_sample) + seconds_or_zero(*confirm_sample)),
                                 duration(by_sample->seconds), duration(confirm_ranks.seconds),
                                 duration(seconds_or_zero(*by_sample) + seconds_or_zero(confirm_ranks)));
    std::cout << fmt::format("  link matrix and its confirmation: scope ranks {} + {} = {}; scope nodes {} + {} = {} "
                             "(every rank of the flagged nodes instead: {} + {} = {})\n",
                             duration(all.front().seconds), duration(confirm_ranks.seconds),
                             duration(seconds_or_zero(all.front()) + seconds_or_zero(confirm_ranks)), duration(by_node.seconds),
                             duration(confirm_nodes.seconds), duration(seconds_or_zero(by_node) + seconds_or_zero(confirm_nodes)),
                             duration(by_node.seconds), duration(confirm_ranks.seconds),
                             duration(seconds_or_zero(by_node) + seconds_or_zero(confirm_ranks)));
}

// The estimate for `check`'s own layout from `ref`'s rounds, beside what `check` measured.
void print_check(const RunTimes& ref, const fs::path& dir, const bench::NcclAssumptions& nccl) {
    const RunTimes check = read_run(dir);
    std::cout << fmt::format("check {} ({} node(s) x {} ranks)\n", dir.string(), check.layout.nodes, check.layout.gpus_per_node);
    for (const Estimate& e : estimates(ref, check.layout, nccl, bench::plan_of(find(check, "allpairs")))) {
        const Measured* measured = find(check, e.test.starts_with("allpairs") ? "allpairs" : e.test);
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
    long pairs_per_node = 0;
    bench::NcclAssumptions nccl;
    app.add_option("--run", run_dirs, "real run folders (comma list): each test's measured time per round, the median over them")
        ->required()->delimiter(',');
    app.add_option("--nodes", node_counts, "node counts to plan for (comma list)")->delimiter(',');
    app.add_option("--gpus-per-node", gpus, "ranks (GPUs) per node")->capture_default_str()->check(CLI::Range(1L, 1024L));
    app.add_option("--check", checks, "run folders to compare the estimate with (their own layout)")->delimiter(',');
    app.add_option("--flagged-nodes", flagged, "nodes whose FAILs await confirmation (default: 1 % of the nodes, at least 1)")
        ->check(CLI::Range(0L, most_ranks));
    app.add_option("--peers", peers, "peers each flagged node's evidence rests on")->capture_default_str()->check(CLI::Range(0L, 1000L));
    app.add_option("--pairs-per-node", pairs_per_node,
                   "also plan allpairs with scope nodes and pairs_per_node K (sampled peers; 0: not planned)")
        ->capture_default_str()->check(CLI::Range(0L, 1'000'000L));
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
            print_plan(ref, Layout{nodes, gpus}, flagged_here, peers,
                       pairs_per_node > 0 ? std::optional<long>(pairs_per_node) : std::nullopt, nccl);
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
