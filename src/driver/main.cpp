// The `shakedown` driver: `run`, `list`, `inventory`, `version`. Input is validated before
// MPI starts, so a typo costs one clear line and exit code 2, not a half-started job.
#include "core/config.hpp"
#include "core/errors.hpp"
#include "core/json_text.hpp"
#include "core/printable_text.hpp"
#include "core/registry.hpp"
#include "driver/build_info.hpp"
#include "driver/list_command.hpp"
#include "driver/mpi_runtime.hpp"
#include "driver/run_command.hpp"
#include "driver/run_plan.hpp"
#include "inventory/inventory.hpp"
#include "profile/profile.hpp"
#include "profile/profile_from_run.hpp"
#include "slurm/cli.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

namespace {

using namespace shakedown;

// Comma lists and repeated options both work: --tests a,b --tests c.
std::vector<std::string> split_names(const std::vector<std::string>& given) {
    std::vector<std::string> names;
    for (const auto& item : given) {
        std::size_t start = 0;
        while (start <= item.size()) {
            const auto comma = item.find(',', start);
            const auto name = item.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            if (!name.empty()) names.push_back(name);
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
    }
    return names;
}

// A text option given empty (`--suite ''`, often an unset shell variable) would silently mean the
// default: refused instead, naming what the option wants.
std::optional<std::string> given_text(const CLI::App& command, const std::string& option, const std::string& value,
                                      const std::string& wants) {
    if (command.count(option) == 0) return std::nullopt;
    if (value.empty()) throw InputError(fmt::format("{} is empty: give {}, or leave {} out", option, wants, option));
    return value;
}

int fail_input(const std::string& message) {
    if (launcher_rank() == 0) fmt::print(stderr, "shakedown: {}\n", escape_control(message));
    return exit_code::bad_input;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"shakedown: acceptance tests for HPC and GPU clusters, node by node and link by link"};
    app.require_subcommand(1);
    app.set_version_flag(
        "--version",
        [] {
            std::string text = build_info();
            if (!text.empty() && text.back() == '\n') text.pop_back();  // CLI11 ends the line itself
            return text;
        },
        "print the version and what it was built with");

    CliOverrides cli;
    cli.command_line.assign(argv, argv + argc);
    std::vector<std::string> tests;
    std::vector<std::string> exclude;
    std::string suite;
    std::string tag;
    std::string out;
    std::string name;
    std::string config_file;
    bool no_telemetry = false;
    std::string profile_file;
    std::optional<int> gpus_per_node;
    std::string profile_from;
    ProgressStyle progress = ProgressStyle::automatic;

    auto* run = app.add_subcommand("run", "run a suite (or chosen tests) on every rank of the MPI job");
    run->add_option("--suite", suite, "suite to run: quick, full, burnin, pairwise (default quick)");
    run->add_option("--tests", tests,
                    "run exactly these tests (comma list), in this order; a wildcard (*, ?, [..]) "
                    "selects every test it matches: --tests 'gemm*,stream'");
    run->add_option("--exclude", exclude, "leave these tests out (comma list, wildcards as for --tests)");
    bool dry_run = false;
    run->add_flag("--dry-run", dry_run,
                  "print the plan (tests, parameters, deadlines, expected time, faults, run folder) "
                  "and exit: nothing is started or written");
    run->add_option("--config", config_file, "YAML configuration file");
    run->add_option("--out", out, "parent folder of the run folder (default ./shakedown-runs)");
    run->add_option("--name", name, "exact name of the new run folder (default: time stamp, tag, Slurm job)");
    run->add_option("--tag", tag, "label added to the run folder name and run.json");
    run->add_flag("--no-telemetry", no_telemetry, "do not sample hardware telemetry (for overhead measurements)");
    run->add_option("--profile", profile_file, "expected profile (YAML): what every node must have and run");
    run->add_option("--gpus-per-node", gpus_per_node, "expect this many GPUs on every node (a profile of that alone)")
        ->check(CLI::Range(0, 4096));
    // A value CLI11's own map transformer refuses is printed with the map ({auto->0,...}): checked here
    // against the words, one line naming them.
    std::string progress_text = "auto";
    run->add_option("--progress", progress_text, "auto, live (one line rewritten in place) or lines (one per test)")
        ->check([](const std::string& value) -> std::string {
            if (value == "auto" || value == "live" || value == "lines") return {};
            return fmt::format("'{}' is not a progress style: give auto, live or lines", value);
        });

    auto* list = app.add_subcommand("list", "list the tests with their suites, parameters and descriptions");
    bool list_json = false;
    list->add_flag("--json", list_json, "print every declaration (parameters, metrics, sample columns) as JSON");
    auto* inventory = app.add_subcommand("inventory", "print this node's inventory");
    bool inventory_json = false;
    inventory->add_flag("--json", inventory_json, "print the inventory as JSON");
    auto* version = app.add_subcommand("version", "print the version and what it was built with (as --version)");
    auto* profile = app.add_subcommand("profile", "print the expected profile of a reference run (YAML)");
    profile->add_option("--from", profile_from, "the run folder of a healthy reference run")->required();
    const slurm::SlurmCommandLine slurm_commands(app);  // `shakedown slurm generate|submit`

    // CLI11 would only say "a subcommand is required" for `shakedown fly`: name the word.
    if (argc > 1 && argv[1][0] != '-') {
        std::vector<std::string> known;
        const CLI::App& commands = app;
        for (const auto* command : commands.get_subcommands([](const CLI::App*) { return true; }))
            known.push_back(command->get_name());
        if (std::find(known.begin(), known.end(), argv[1]) == known.end())
            return fail_input(fmt::format("unknown command '{}' (known: {})", argv[1], fmt::join(known, ", ")));
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& help) {
        return app.exit(help);
    } catch (const CLI::CallForAllHelp& help) {
        return app.exit(help);
    } catch (const CLI::CallForVersion& version) {
        return app.exit(version);
    } catch (const CLI::ParseError& error) {
        return fail_input(fmt::format("{} (see 'shakedown --help')", error.what()));
    }

    try {
        if (slurm_commands.chosen()) return slurm_commands.execute();
        if (*list) {
            fmt::print("{}", list_json ? format_test_list_json(Registry::instance()) : format_test_list(Registry::instance()));
            return exit_code::ok;
        }
        if (*inventory) {
            const auto found = collect_inventory();
            fmt::print("{}\n", inventory_json ? json_text(found, 2) : format_inventory(found));
            return exit_code::ok;
        }
        if (*version) {
            fmt::print("{}", build_info());
            return exit_code::ok;
        }
        if (*profile) {
            fmt::print("{}", profile::to_yaml(profile::profile_from_run(profile_from)));
            return exit_code::ok;
        }
        cli.suite = given_text(*run, "--suite", suite, "a suite name (quick, full, burnin, pairwise)");
        cli.tests = split_names(tests);
        if (run->count("--tests") > 0 && cli.tests.empty())  // `--tests ''` must not mean "the whole suite"
            return fail_input("--tests names no test (give one or more test names, or leave --tests out for the suite)");
        cli.exclude = split_names(exclude);
        cli.tag = given_text(*run, "--tag", tag, "a label");
        if (const auto parent = given_text(*run, "--out", out, "the folder the run folder goes into")) cli.out_parent = *parent;
        cli.run_name = given_text(*run, "--name", name, "a folder name");
        if (const auto file = given_text(*run, "--config", config_file, "a YAML file")) cli.config_file = *file;
        (void)given_text(*run, "--profile", profile_file, "a profile file");
        if (no_telemetry) cli.telemetry_enabled = false;
        cli.progress = progress_text == "live" ? ProgressStyle::live : progress_text == "lines" ? ProgressStyle::lines : progress;
        const Config config = load_config(cli, Registry::instance());
        if (!profile_file.empty() && gpus_per_node)
            return fail_input("give --profile or --gpus-per-node, not both (put gpus_per_node in the profile)");
        std::optional<std::string> profile_yaml;  // checked before MPI starts: a typo costs no job
        if (!profile_file.empty()) profile_yaml = profile::to_yaml(profile::read_profile(profile_file, Registry::instance().keys()));
        if (gpus_per_node) profile_yaml = profile::to_yaml(profile::gpus_per_node_profile(*gpus_per_node));
        if (dry_run) {  // under mpirun every rank would print it: the launcher's rank 0 alone does
            if (launcher_rank() == 0) {
                const Registry& registry = Registry::instance();
                fmt::print("{}",
                           format_run_plan(config, registry, registry.select(config.suite, config.tests, config.exclude)));
            }
            return exit_code::ok;
        }
        return run_command(config, profile_yaml, argc, argv);
    } catch (const InputError& error) {
        return fail_input(error.what());
    }
}
